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

/// Text from outside printed to a terminal: control characters and escapes become "?".
public enum ScreenSafe {
    /// A URL as the user may see it: no password, no control characters.
    public static func url(_ url: String) -> String { clean(URLCheck.withoutPassword(url)) }

    public static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { s in
            (s.value < 0x20 && s != "\t") || (s.value >= 0x7F && s.value < 0xA0) ? "?" : s
        }))
    }
}
