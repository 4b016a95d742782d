/// Recognises the plain http(s) URLs that make up nearly every list: a lowercase scheme, a host
/// of letters, digits, dots and dashes, an optional port, and a path and query of URL
/// characters with well-formed percent escapes. Each such URL is one `URLCheck` accepts, and
/// telling so by its bytes skips `URLComponents`, most of a second for a million URLs. Anything
/// else (user info, brackets, a fragment, other schemes) is left to `URLComponents`.
enum PlainWebURL {
    static func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i: Int
            if bytes.starts(with: "http://".utf8) {
                i = 7
            } else if bytes.starts(with: "https://".utf8) {
                i = 8
            } else {
                return false
            }
            let hostStart = i
            while i < bytes.count, isHostByte(bytes[i]) { i += 1 }
            guard i > hostStart else { return false }
            if i < bytes.count, bytes[i] == UInt8(ascii: ":") {
                i += 1
                let portStart = i
                while i < bytes.count, i - portStart < 5, isDigit(bytes[i]) { i += 1 }
                guard i > portStart else { return false }
            }
            guard i == bytes.count || bytes[i] == UInt8(ascii: "/") else { return false }
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "%") {
                    guard i + 2 < bytes.count, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return false }
                    i += 3
                    continue
                }
                guard isPathByte(byte) else { return false }
                i += 1
            }
            return true
        }
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private static func isLetter(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
    }

    private static func isHostByte(_ b: UInt8) -> Bool { isLetter(b) || isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") }

    /// RFC 3986's unreserved characters and the sub-delimiters, ":", "@", "/" and "?" (no "#":
    /// a fragment goes the long way).
    private static func isPathByte(_ b: UInt8) -> Bool {
        if isLetter(b) || isDigit(b) { return true }
        switch b {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
