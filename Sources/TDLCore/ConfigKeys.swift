/// The keys a config file may set: the command line's long option names, and the keys of
/// queues (`queue.NAME.max`), the rate schedule and categories (`category.NAME.dir`).
public enum ConfigKeys {
    public enum Kind: Hashable, Sendable {
        case text, path, rate, flag, header
        case number(ClosedRange<Int>)
        case choice([String])
        case window, days, scheduleEntry, extensions
    }

    public struct Key: Hashable, Sendable {
        public let name: String
        public let kind: Kind
        /// Given on several lines, every value counts (`header`); else the last line wins.
        public let repeats: Bool
    }

    /// The plain keys, as the command line spells its options.
    public static let plain: [Key] = [
        Key(name: "dir", kind: .path, repeats: false),
        Key(name: "user-agent", kind: .text, repeats: false),
        Key(name: "referer", kind: .text, repeats: false),
        Key(name: "header", kind: .header, repeats: true),
        Key(name: "load-cookies", kind: .path, repeats: false),
        Key(name: "save-cookies", kind: .path, repeats: false),
        Key(name: "max-connections-per-host", kind: .number(1...1000), repeats: false),
        Key(name: "lowest-speed-limit", kind: .rate, repeats: false),
        Key(name: "insecure", kind: .flag, repeats: false),
        Key(name: "cacert", kind: .path, repeats: false),
        Key(name: "limit-rate", kind: .rate, repeats: false),
        Key(name: "max-download-limit", kind: .rate, repeats: false),
        Key(name: "on-complete", kind: .text, repeats: false),
        Key(name: "on-error", kind: .text, repeats: false),
        Key(name: "interrupted", kind: .choice(["resume", "wait"]), repeats: false),
        Key(name: "rpc-listen-port", kind: .number(1024...65_535), repeats: false),
        Key(name: "rpc-listen-all", kind: .flag, repeats: false),
        Key(name: "rpc-secret", kind: .text, repeats: false),
        Key(name: "rpc-allow-origin", kind: .text, repeats: true),
        Key(name: "rpc-allow-origin-all", kind: .flag, repeats: false),
        Key(name: "rpc-allowed-dir", kind: .path, repeats: true),
        Key(name: "rate-schedule", kind: .scheduleEntry, repeats: true),
    ]

    /// Options of the command line a config file cannot set, and why.
    static let notKeys: [String: String] = [
        "session": "the file holds for every session; choose one with --session",
        "home": "the file holds for every home; choose one with --home or TDL_HOME",
    ]

    /// `queue.NAME.<field>`.
    public static let queueFields: [Key] = [
        Key(name: "max", kind: .number(0...SessionSettings.largestDownloadCount), repeats: false),
        Key(name: "limit", kind: .rate, repeats: false),
        Key(name: "window", kind: .window, repeats: true),
        Key(name: "days", kind: .days, repeats: false),
    ]

    /// `category.NAME.<field>`.
    public static let categoryFields: [Key] = [
        Key(name: "ext", kind: .extensions, repeats: false),
        Key(name: "dir", kind: .path, repeats: false),
    ]

    /// The key a config line names, or why it names none: (the key's rule, the queue's or
    /// category's name when it has one).
    static func lookUp(_ name: String) -> Result<(Key, group: String?), QueueTextProblem> {
        if let key = plain.first(where: { $0.name == name }) { return .success((key, nil)) }
        for (prefix, fields) in [("queue", queueFields), ("category", categoryFields)] where name.hasPrefix(prefix + ".") {
            let rest = name.dropFirst(prefix.count + 1)
            guard let dot = rest.lastIndex(of: "."), dot != rest.startIndex else {
                return .failure(QueueTextProblem("\"\(name)\" needs a name and a field, e.g. \(prefix).NAME.\(fields[0].name)"))
            }
            let group = String(rest[..<dot]), field = String(rest[rest.index(after: dot)...])
            guard let key = fields.first(where: { $0.name == field }) else {
                return .failure(QueueTextProblem("\"\(field)\" is not a field of a \(prefix): use \(fields.map(\.name).joined(separator: ", "))"))
            }
            if prefix == "queue", let problem = QueueDefinition.problem(withName: group) { return .failure(QueueTextProblem(problem)) }
            guard prefix == "queue" || group.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return .failure(QueueTextProblem("\"\(group)\" is not a category name: use letters, digits, '-' and '_'"))
            }
            return .success((key, group))
        }
        if let reason = notKeys[name] { return .failure(QueueTextProblem("\"\(name)\" is not a config key: \(reason)")) }
        return .failure(QueueTextProblem("unknown key \"\(TerminalText.clean(String(name.prefix(60))))\""))
    }
}
