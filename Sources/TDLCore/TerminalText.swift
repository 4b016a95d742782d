/// Text from outside (names, URLs, servers' and callers' words) as it may reach a terminal:
/// the one sanitizer of the screen, `tdl list`, stderr and the messages. C0 and C1 controls
/// (ESC, so no escape sequence survives; tab, so no column moves), DEL, the bidi overrides and
/// isolates (U+202A…U+202E, U+2066…U+2069: a name must not read backwards) and the line and
/// paragraph separators each become "?".
public enum TerminalText {
    public static func clean(_ text: String) -> String {
        isClean(text.utf8) ? text : cleaned(text)
    }

    /// `clean(text)`'s UTF-8, appended.
    public static func append(_ text: String, to buffer: inout [UInt8]) {
        let bytes = text.utf8
        if isClean(bytes) { buffer.append(contentsOf: bytes) } else { buffer.append(contentsOf: cleaned(text).utf8) }
    }

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// Almost every text is clean: checking its bytes costs far less than rebuilding it (`tdl
    /// list` cleans two texts for each of a million tasks). In UTF-8, C1 controls are 0xC2
    /// then 0x80…0x9F; U+2028…U+202E are E2 80 A8…AE, U+2066…U+2069 are E2 81 A6…A9.
    private static func isClean(_ bytes: String.UTF8View) -> Bool {
        var previous: UInt8 = 0, beforeThat: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0) { return false }
            if beforeThat == 0xE2 && previous == 0x80 && (0xA8...0xAE).contains(byte) { return false }
            if beforeThat == 0xE2 && previous == 0x81 && (0xA6...0xA9).contains(byte) { return false }
            beforeThat = previous
            previous = byte
        }
        return true
    }

    private static func cleaned(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isUnsafe($0) ? "?" : $0 }))
    }
}
