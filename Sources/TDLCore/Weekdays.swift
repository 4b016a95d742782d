/// Days of the week a time window opens on: "mon,tue", "mon-fri", "sat,sun", "all".
/// Numbered as `Calendar` numbers them (1 Sunday … 7 Saturday).
public struct Weekdays: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Bit `n` set: weekday `n` (1…7).
    public private(set) var bits: UInt8

    public static let all = Weekdays(bits: 0b1111_1110)
    public static let none = Weekdays(bits: 0)

    /// Monday first, as a person lists a week.
    static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    /// `names[i]` is Calendar's weekday `calendarNumber[i]`.
    static let calendarNumber = [2, 3, 4, 5, 6, 7, 1]

    public init(bits: UInt8) { self.bits = bits & 0b1111_1110 }

    /// Calendar weekdays (1 Sunday … 7 Saturday).
    public init(_ weekdays: [Int]) {
        var bits: UInt8 = 0
        for day in weekdays where (1...7).contains(day) { bits |= 1 << day }
        self.init(bits: bits)
    }

    public func contains(weekday: Int) -> Bool { (1...7).contains(weekday) && bits & (1 << weekday) != 0 }

    public var isEmpty: Bool { bits == 0 }

    /// "mon,tue,sat", "mon-fri" or "all" (the form `parse` reads).
    public var description: String {
        if self == .all { return "all" }
        let on = Self.names.indices.filter { contains(weekday: Self.calendarNumber[$0]) }
        if let first = on.first, let last = on.last, on.count > 2, on == Array(first...last) {
            return "\(Self.names[first])-\(Self.names[last])"
        }
        return on.map { Self.names[$0] }.joined(separator: ",")
    }

    /// Reads a list of day names and ranges (Monday to Sunday order: "fri-mon" wraps).
    /// Names may be longer ("monday") and any case; also "all", "weekdays", "weekend".
    public static func parse(_ text: String) throws -> Weekdays {
        let trimmed = text.lowercased().filter { !$0.isWhitespace }
        guard !trimmed.isEmpty else { throw QueueTextProblem("no days given: name them as mon,tue… or mon-fri") }
        var days: [Int] = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            switch part {
            case "all", "daily", "everyday": return .all
            case "weekdays": days += [0, 1, 2, 3, 4]; continue
            case "weekend", "weekends": days += [5, 6]; continue
            default: break
            }
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count <= 2 else { throw QueueTextProblem("\"\(part)\" is not a day or a range of days (e.g. mon-fri)") }
            let indices = try ends.map { try index(of: $0) }
            if indices.count == 1 {
                days.append(indices[0])
            } else {
                var day = indices[0]
                days.append(day)
                while day != indices[1] {
                    day = (day + 1) % 7
                    days.append(day)
                }
            }
        }
        return Weekdays(days.map { calendarNumber[$0] })
    }

    private static func index(of name: Substring) throws -> Int {
        guard name.count >= 2, let index = names.firstIndex(where: { full(of: $0).hasPrefix(name) }) else {
            throw QueueTextProblem("\"\(name)\" is not a day: use mon, tue, wed, thu, fri, sat, sun")
        }
        return index
    }

    private static func full(of name: String) -> String {
        ["mon": "monday", "tue": "tuesday", "wed": "wednesday", "thu": "thursday", "fri": "friday",
         "sat": "saturday", "sun": "sunday"][name] ?? name
    }
}

/// Words for a person about a queue, window, day or schedule text that cannot be read.
public struct QueueTextProblem: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
