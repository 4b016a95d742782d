import Foundation

/// Decides whether a string is a URL tdl can download, and why not.
public enum URLCheck {
    public static let supportedSchemes: Set<String> = ["http", "https", "ftp", "ftps", "file"]

    /// nil when acceptable, else the reason in words.
    public static func problem(with text: String) -> String? {
        if text.isEmpty { return "empty URL" }
        if PlainWebURL.matches(text) { return nil }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }) {
            return "contains spaces or control characters"
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "not a URL"
        }
        guard supportedSchemes.contains(scheme) else { return "unsupported scheme \"\(scheme)\"" }
        if scheme == "file" {
            return components.path.isEmpty ? "file URL without a path" : nil
        }
        // The host as written: `host` would decode an international name, and its first use
        // loads ICU's IDNA tables.
        guard let host = components.percentEncodedHost, !host.isEmpty else { return "no host" }
        return nil
    }

    /// A file name guessed from the URL's last path segment (percent-decoded once); "download"
    /// when none. Split by hand on the UTF-8 bytes: it runs for every added URL and every
    /// answer, and parsing with Foundation (`URLComponents`, then `range(of:)`) was several
    /// per cent of the event loop's time for 500 small files.
    public static func suggestedFileName(for text: String) -> String {
        let bytes = text.utf8
        let slash = UInt8(ascii: "/")
        var start = bytes.startIndex
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
            // The host and port run up to the next "/".
            start = bytes[bytes.index(colon, offsetBy: 3)...].firstIndex(of: slash) ?? bytes.endIndex
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        // The last segment that is not empty.
        var segmentEnd = end
        while segmentEnd > start, bytes[bytes.index(before: segmentEnd)] == slash { segmentEnd = bytes.index(before: segmentEnd) }
        var segmentStart = segmentEnd
        while segmentStart > start, bytes[bytes.index(before: segmentStart)] != slash { segmentStart = bytes.index(before: segmentStart) }
        let last = String(text[segmentStart..<segmentEnd])
        let decoded = last.utf8.contains(UInt8(ascii: "%")) ? (last.removingPercentEncoding ?? last) : last
        return FileNameSanitizer.sanitize(decoded) ?? "download"
    }

    /// The URL as it may be shown: a password in it ("user:secret@host") becomes "***". The
    /// URL stays the task's identity everywhere else (the session, `list --json`, hooks).
    public static func withoutPassword(_ url: String) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return url }
        let authorityStart = bytes.index(colon, offsetBy: 3)
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        guard let at = bytes[authorityStart ..< authorityEnd].lastIndex(of: UInt8(ascii: "@")),
              let separator = bytes[authorityStart ..< at].firstIndex(of: UInt8(ascii: ":")) else { return url }
        return String(url[..<bytes.index(after: separator)]) + "***" + String(url[at...])
    }
}
