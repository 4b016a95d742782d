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
        if isClean(text.utf8) { return text }
        return cleaned(text)
    }

    /// `clean(text)`'s UTF-8, appended.
    public static func append(_ text: String, to buffer: inout [UInt8]) {
        let bytes = text.utf8
        buffer.append(contentsOf: isClean(bytes) ? bytes : cleaned(text).utf8)
    }

    /// Bytes of text with no control characters. Almost every text is clean: checking its
    /// bytes costs far less than rebuilding it (`tdl list` cleans two texts for each of a
    /// million tasks). C1 controls are U+0080…U+009F, in UTF-8 the byte 0xC2 followed by 0x80…0x9F.
    private static func isClean(_ bytes: String.UTF8View) -> Bool {
        var afterC2 = false
        for byte in bytes {
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F || (afterC2 && byte < 0xA0) { return false }
            afterC2 = byte == 0xC2
        }
        return true
    }

    private static func cleaned(_ text: String) -> String {
        return String(String.UnicodeScalarView(text.unicodeScalars.map { s in
            (s.value < 0x20 && s != "\t") || (s.value >= 0x7F && s.value < 0xA0) ? "?" : s
        }))
    }
}
