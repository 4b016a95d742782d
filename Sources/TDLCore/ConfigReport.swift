/// What `tdl config` prints: every key's value in force and where it comes from (a config
/// file's line, the session, or tdl's default), as config lines a person may copy back.
public enum ConfigReport {
    public struct Line: Hashable, Sendable {
        public let key: String
        /// Nil: not set anywhere.
        public let value: String?
        /// "FILE:LINE", "session", "default" or "not set".
        public let source: String

        /// "key=value  # source".
        public var text: String { "\(value.map { "\(key)=\($0)" } ?? "# \(key)")  # \(source)" }
    }

    /// The lines for `config` (nil: no file) over `session`'s settings and `defaults` (by key).
    public static func lines(config: ConfigFile?, session: SessionSettings, defaults: [String: String]) -> [Line] {
        let kept = sessionValues(session)
        var lines: [Line] = []
        for key in ConfigKeys.plain {
            let given = config.map { key.repeats ? $0.values(key.name) : $0.value(key.name).map { [$0] } ?? [] } ?? []
            if !given.isEmpty {
                lines += given.map { Line(key: key.name, value: shown(key.name, $0.value), source: "\(config!.path):\($0.line)") }
            } else if let values = kept[key.name], !values.isEmpty {
                lines += values.map { Line(key: key.name, value: shown(key.name, $0), source: "session") }
            } else if let value = defaults[key.name] {
                lines.append(Line(key: key.name, value: value, source: "default"))
            } else {
                lines.append(Line(key: key.name, value: nil, source: "not set"))
            }
        }
        // Queues: the config file's lines, then the session's queues it does not define.
        let fromFile = config?.entries.filter { $0.key.hasPrefix("queue.") } ?? []
        lines += fromFile.map { Line(key: $0.key, value: $0.value, source: "\(config!.path):\($0.line)") }
        for queue in session.queues.definitions where config?.queues[queue.name] == nil {
            let prefix = "queue.\(queue.name)."
            lines.append(Line(key: prefix + "max", value: String(queue.maxActive), source: "session"))
            if let rate = queue.rateLimit { lines.append(Line(key: prefix + "limit", value: RateSchedule.Entry.plainRate(rate), source: "session")) }
            for window in queue.hours.windows {
                lines.append(Line(key: prefix + "window", value: window.hours, source: "session"))
            }
            if let days = queue.hours.windows.first?.days, days != .all {
                lines.append(Line(key: prefix + "days", value: days.description, source: "session"))
            }
        }
        if config?.rateSchedule.isEmpty ?? true {
            lines += session.rateSchedule.entries.map { Line(key: "rate-schedule", value: $0.description, source: "session") }
        }
        // Categories: every one, from the file or tdl's table.
        for category in (config?.categories ?? .defaults).all {
            for (field, value) in [("ext", category.extensions.joined(separator: ",")), ("dir", category.directory)] {
                let key = "category.\(category.name).\(field)"
                if let entry = config?.value(key) {
                    lines.append(Line(key: key, value: entry.value, source: "\(config!.path):\(entry.line)"))
                } else {
                    lines.append(Line(key: key, value: value, source: value == nil ? "not set" : "default"))
                }
            }
        }
        return lines
    }

    /// The keys the session keeps a value of other than tdl's default.
    static func sessionValues(_ s: SessionSettings) -> [String: [String]] {
        let standard = SessionSettings()
        var values: [String: [String]] = ["rpc-allow-origin": s.rpcAllowOrigins, "rpc-allowed-dir": s.rpcAllowedDirs]
        if s.rpcListenPort != standard.rpcListenPort { values["rpc-listen-port"] = [String(s.rpcListenPort)] }
        if !s.resumeInterruptedOnLaunch { values["interrupted"] = ["wait"] }
        if let dir = s.downloadDirectory { values["dir"] = [dir] }
        if let rate = s.globalRateLimit { values["limit-rate"] = [RateSchedule.Entry.plainRate(rate)] }
        if let hook = s.onComplete { values["on-complete"] = [hook] }
        if let hook = s.onError { values["on-error"] = [hook] }
        if s.rpcListenAll { values["rpc-listen-all"] = ["true"] }
        if s.rpcAllowOriginAll { values["rpc-allow-origin-all"] = ["true"] }
        if s.rpcSecret != nil { values["rpc-secret"] = ["(set)"] }
        return values
    }

    /// Secrets are not printed: a secret is "(set)", a header's secret value masked.
    static func shown(_ key: String, _ value: String) -> String {
        switch key {
        case "rpc-secret": return "(set)"
        case "header": return RequestHeader.masked(value)
        default: return TerminalText.clean(value)
        }
    }
}
