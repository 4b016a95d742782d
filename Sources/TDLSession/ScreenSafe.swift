import TDLCore

/// A task's state in one word, as `tdl list` prints it and a status reply carries it.
public enum ListStateWord {
    public static func word(_ state: TaskState) -> String {
        switch state {
        case .waiting: return "waiting"
        case .downloading: return "downloading"
        case .paused: return "paused"
        case .stopped: return "stopped"
        case .finished: return "done"
        case .failed: return "failed"
        }
    }
}

/// Text from outside printed to a terminal, by TDLCore's one sanitizer (`TerminalText`).
public enum ScreenSafe {
    /// A URL as the user may see it: no password, no control characters.
    public static func url(_ url: String) -> String { clean(URLCheck.withoutPassword(url)) }

    public static func clean(_ text: String) -> String { TerminalText.clean(text) }

    /// `clean(text)`'s UTF-8, appended.
    public static func append(_ text: String, to buffer: inout [UInt8]) { TerminalText.append(text, to: &buffer) }
}
