import Foundation

/// tdl's config file, in aria2.conf's shape: `key=value` lines, `#` comments, blank lines;
/// the keys are the command line's long option names (see `ConfigKeys`). Every value is read
/// as the command line reads it; a line that cannot be read is an error that names the file
/// and the line, so nothing runs on settings the user did not mean.
public struct ConfigFile: Sendable {
    public struct Entry: Hashable, Sendable {
        public let key: String
        /// As checked: a path with `~` expanded, a rate as written.
        public let value: String
        public let line: Int
    }

    /// "FILE:LINE: what is wrong".
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    public let path: String
    public private(set) var entries: [Entry] = []
    public private(set) var queues = QueueList()
    public private(set) var rateSchedule = RateSchedule()
    public private(set) var categories = Categories.defaults

    /// `$XDG_CONFIG_HOME/tdl/tdl.conf`, else `~/.config/tdl/tdl.conf`.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/tdl/tdl.conf" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/tdl/tdl.conf"
    }

    /// Reads the file at `path`; nil when there is none.
    public static func load(path: String, home: String?) throws -> ConfigFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(file: path, line: 0, message: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(file: path, line: 0, message: "is not UTF-8 text")
        }
        return try ConfigFile(text: text, path: path, home: home)
    }

    public init(text: String, path: String, home: String?) throws {
        self.path = path
        var windows: [String: [(TimeWindow, Int)]] = [:]
        var days: [String: Weekdays] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let lineNumber = index + 1
            let fail = { (message: String) in Problem(file: path, line: lineNumber, message: message) }
            var line = raw.trimmingWhitespace()
            if index == 0, line.hasPrefix("\u{FEFF}") { line = line.dropFirst().trimmingWhitespace() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail("\"\(TerminalText.clean(String(line.prefix(60))))\" is not key=value")
            }
            let key = String(line[..<equals].trimmingWhitespace())
            let value = String(line[line.index(after: equals)...].trimmingWhitespace())
            let rule: ConfigKeys.Key, group: String?
            switch ConfigKeys.lookUp(key) {
            case .success(let found): (rule, group) = found
            case .failure(let problem): throw fail(problem.description)
            }
            guard !value.isEmpty else { throw fail("\(key) has no value") }
            let checked: String
            do { checked = try Self.check(value, as: rule.kind, home: home) } catch { throw fail("\(key): \(error)") }
            // A per-download option is read as the command line reads it, with its message.
            if group == nil, let option = DownloadOption(rawValue: key) {
                var scratch = DownloadOptions()
                do { try option.read(checked, into: &scratch, absolute: { $0 }) } catch { throw fail(error.message(as: key)) }
            }
            if ["load-cookies", "cacert"].contains(key), !FileManager.default.isReadableFile(atPath: checked) {
                throw fail("\(key): cannot read \(checked)")
            }
            entries.append(Entry(key: key, value: checked, line: lineNumber))
            // Queues and categories are gathered as their lines come; days apply to every
            // window of their queue, whichever line comes first.
            do {
                switch (String(key.prefix { $0 != "." }), group, rule.name) {
                case ("queue", let name?, "max"): update(name) { $0.maxActive = Int(checked)! }
                case ("queue", let name?, "limit"): update(name) { $0.rateLimit = try? RateText.parse(checked) }
                case ("queue", let name?, "window"):
                    update(name) { _ in }
                    windows[name, default: []].append((try TimeWindow.parse(checked), lineNumber))
                case ("queue", let name?, "days"): update(name) { _ in }; days[name] = try Weekdays.parse(checked)
                case ("category", let name?, "ext"): categories.setExtensions(Self.list(checked), of: name)
                case ("category", let name?, "dir"): categories.setDirectory(checked, of: name)
                case (_, nil, "rate-schedule"): rateSchedule.entries.append(try RateSchedule.Entry.parse(checked))
                default: break
                }
            } catch { throw fail("\(key): \(error)") }
        }
        for (name, given) in windows {
            update(name) { $0.hours = OpenHours(given.map { TimeWindow(start: $0.0.start, end: $0.0.end, days: days[name] ?? .all) }) }
        }
        for (name, weekdays) in days where windows[name] == nil {
            // Days alone: the whole of each of those days.
            update(name) { $0.hours = OpenHours([TimeWindow(start: 0, end: 1440, days: weekdays)]) }
        }
    }

    private mutating func update(_ name: String, _ change: (inout QueueDefinition) -> Void) {
        var definition = queues[name] ?? QueueDefinition(name: name)
        change(&definition)
        queues.set(QueueDefinition(name: name, maxActive: definition.maxActive, rateLimit: definition.rateLimit, hours: definition.hours))
    }

    /// The value a single-valued key has (its last line), or nil.
    public func value(_ key: String) -> Entry? { entries.last { $0.key == key } }

    /// Every line of a key that repeats, in order.
    public func values(_ key: String) -> [Entry] { entries.filter { $0.key == key } }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
    }

    /// The value as the command line would take it, or why not.
    static func check(_ value: String, as kind: ConfigKeys.Kind, home: String?) throws -> String {
        switch kind {
        case .text:
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw QueueTextProblem("control characters are not allowed")
            }
            return value
        case .header:
            if let problem = RequestHeader.problem(with: value) { throw QueueTextProblem(problem) }
            return value
        case .path:
            if value == "~" || value.hasPrefix("~/") {
                guard let home else { throw QueueTextProblem("\"~\" needs HOME to be set") }
                return home + value.dropFirst()
            }
            guard value.hasPrefix("/") else { throw QueueTextProblem("\"\(TerminalText.clean(value))\" is not an absolute path (or ~/…)") }
            return value
        case .rate:
            do { _ = try RateText.parse(value) } catch { throw QueueTextProblem("\(error)") }
            return value
        case .flag:
            switch value.lowercased() {
            case "true", "yes", "1", "on": return "true"
            case "false", "no", "0", "off": return "false"
            default: throw QueueTextProblem("\"\(TerminalText.clean(value))\" is not true or false")
            }
        case .number(let range):
            guard let n = Int(value), range.contains(n) else {
                throw QueueTextProblem("\"\(TerminalText.clean(String(value.prefix(30))))\" is not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return String(n)
        case .choice(let choices):
            guard choices.contains(value) else { throw QueueTextProblem("\"\(TerminalText.clean(value))\" is not one of \(choices.joined(separator: ", "))") }
            return value
        case .window: _ = try TimeWindow.parse(value); return value
        case .days: _ = try Weekdays.parse(value); return value
        case .scheduleEntry: _ = try RateSchedule.Entry.parse(value); return value
        case .extensions:
            guard !list(value).isEmpty else { throw QueueTextProblem("no extensions given, e.g. mp4,mkv") }
            return value
        }
    }
}
