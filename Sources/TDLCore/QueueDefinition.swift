import Foundation

/// A named queue: how many of its downloads run at once, their rate together, and when it may
/// run. Its downloads also count against the session's own limits (downloads at once, the rate
/// cap), which hold over every queue. A download names its queue in its options
/// (`DownloadOptions.queue`); one that names none, or a queue not defined, is in the default
/// queue, which runs as tdl always ran unless it is defined too.
public struct QueueDefinition: Hashable, Sendable, Codable {
    public static let defaultName = "default"
    public static let longestName = 40

    public let name: String
    /// Downloads of this queue at once (0: only the session's limit).
    public var maxActive: Int
    /// Bytes a second for the queue's downloads together (nil: none), shared equally.
    public var rateLimit: Int64?
    public var hours: OpenHours

    public init(name: String, maxActive: Int = 0, rateLimit: Int64? = nil, hours: OpenHours = .always) {
        self.name = name
        self.maxActive = max(0, min(maxActive, SessionSettings.largestDownloadCount))
        self.rateLimit = rateLimit.flatMap { $0 > 0 ? min($0, RateText.largest) : nil }
        self.hours = hours
    }

    /// Nil when `name` may name a queue; else why not. Letters, digits, `.`, `_` and `-`: a
    /// name is typed on command lines and written in config keys (`queue.NAME.max`).
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty else { return "a queue needs a name" }
        guard name.count <= longestName else { return "a queue's name has at most \(longestName) characters" }
        let allowed = name.unicodeScalars.allSatisfy {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || "._-".unicodeScalars.contains($0)
        }
        guard allowed, name.first != "-", name.first != "." else {
            return "\"\(TerminalText.clean(name))\" is not a queue name: use letters, digits, '.', '_' and '-'"
        }
        return nil
    }

    /// "2 at once, 500.0 KB/s, mon-fri 22:00-06:00".
    public var summary: String {
        var parts = [maxActive > 0 ? "\(maxActive) at once" : "no own limit at once"]
        parts.append(rateLimit.map { ByteFormat.rate($0) } ?? "no own rate cap")
        parts.append(hours.isAlways ? "any time" : hours.description)
        return parts.joined(separator: ", ")
    }
}

/// The queues a session knows, by name, in the order they were defined.
public struct QueueList: Hashable, Sendable, Codable {
    public private(set) var definitions: [QueueDefinition] = []

    public init(_ definitions: [QueueDefinition] = []) {
        for definition in definitions { set(definition) }
    }

    public var isEmpty: Bool { definitions.isEmpty }
    public var names: [String] { definitions.map(\.name) }

    public subscript(name: String) -> QueueDefinition? { definitions.first { $0.name == name } }

    /// The queue a download of `queue` (nil: none named) runs in: its definition, or nil for
    /// a default queue that runs as tdl always ran.
    public func definition(for queue: String?) -> QueueDefinition? {
        guard !definitions.isEmpty else { return nil }
        return self[queue ?? QueueDefinition.defaultName] ?? (queue == nil ? nil : self[QueueDefinition.defaultName])
    }

    /// The queue's name as a download's queue is counted.
    public func key(for queue: String?) -> String {
        definition(for: queue)?.name ?? QueueDefinition.defaultName
    }

    /// Adds a queue, or replaces the one of the same name in its place.
    public mutating func set(_ definition: QueueDefinition) {
        if let index = definitions.firstIndex(where: { $0.name == definition.name }) {
            definitions[index] = definition
        } else {
            definitions.append(definition)
        }
    }

    @discardableResult
    public mutating func remove(_ name: String) -> Bool {
        guard let index = definitions.firstIndex(where: { $0.name == name }) else { return false }
        definitions.remove(at: index)
        return true
    }

    /// These queues with `overrides`' definitions in place of theirs (a config file's over
    /// the session's).
    public func overlaid(by overrides: QueueList) -> QueueList {
        var result = self
        for definition in overrides.definitions { result.set(definition) }
        return result
    }

    /// When the next queue opens or closes after `date` (nil: none ever changes).
    public func nextChange(after date: Date, calendar: Calendar = .current) -> Date? {
        definitions.compactMap { $0.hours.nextChange(after: date, calendar: calendar) }.min()
    }
}
