/// A request header the user gives (`-H 'Name: value'`, `header=` in an input file, a pasted
/// curl command): checked, merged, and shown without its secrets.
public enum RequestHeader {
    /// Headers tdl sets itself for resuming and segments: a user's would corrupt the file.
    static let reserved: Set<String> = ["range", "if-range", "content-length", "transfer-encoding", "host", "connection"]

    /// Why `line` is not a header tdl can send; nil when it is one.
    public static func problem(with line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return "a header looks like \"Name: value\"" }
        let name = line[..<colon]
        let tokenCharacters = "!#$%&'*+-.^_`|~"
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
            || tokenCharacters.unicodeScalars.contains($0)) }) else {
            return "\"\(name)\" is not a header name"
        }
        if let problem = RequestText.problem(inValue: line) { return problem }
        if reserved.contains(name.lowercased()) { return "tdl sets \(name) itself" }
        return nil
    }

    /// The header's name, lowercased ("cookie" for "Cookie: a=b").
    public static func name(of line: String) -> String {
        String(line.prefix { $0 != ":" }).trimmingWhitespace().lowercased()
    }

    /// `base`, with each header of `overrides` replacing those of the same name.
    public static func merged(_ base: [String]?, _ overrides: [String]?) -> [String]? {
        guard let overrides, !overrides.isEmpty else { return base }
        guard let base, !base.isEmpty else { return overrides }
        let replaced = Set(overrides.map(name(of:)))
        return base.filter { !replaced.contains(name(of: $0)) } + overrides
    }

    /// Header names whose value is a secret: shown as "***".
    static let secretWords = ["auth", "cookie", "token", "key", "secret", "session", "password", "csrf", "xsrf", "signature"]

    public static func isSecret(name: String) -> Bool {
        let lower = name.lowercased()
        return secretWords.contains { lower.contains($0) }
    }

    /// The header as it may be shown: a secret's value becomes "***" (a cookie keeps its
    /// names: "Cookie: session=***; theme=***"; an Authorization its scheme: "Bearer ***").
    public static func masked(_ line: String) -> String {
        // Not a header at all: nothing of it is shown, it may be all secret.
        guard let colon = line.firstIndex(of: ":") else { return "***" }
        let name = String(line[..<colon])
        guard isSecret(name: name) else { return line }
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        let lower = name.lowercased()
        if lower == "cookie" || lower == "set-cookie" {
            let pairs = value.split(separator: ";").map { pair -> String in
                let key = pair.prefix { $0 != "=" }.trimmingWhitespace()
                return String(key) + "=***"
            }
            return name + ": " + pairs.joined(separator: "; ")
        }
        if lower.contains("authorization"), let space = value.firstIndex(of: " ") {
            return name + ": " + String(value[..<space]) + " ***"
        }
        return name + ": ***"
    }

    /// "scheme://host:port" in lowercase, without credentials: the unit that may receive the
    /// user's headers and credentials. Nil when `url` has no authority.
    public static func origin(of url: String) -> String? {
        var url = url
        return url.withUTF8(origin(ofBytes:))
    }

    // Byte by byte: it runs for each connection, and Foundation's `contains` with String's
    // slicing and lowercasing cost a third of a small download's connection set-up.
    private static func origin(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        guard let schemeEnd = bytes.firstIndex(of: colon), schemeEnd + 2 < bytes.count,
              bytes[schemeEnd + 1] == slash, bytes[schemeEnd + 2] == slash else { return nil }
        let authorityStart = schemeEnd + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var hostStart = authorityStart
        if let at = bytes[authorityStart ..< authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        let hostPort = bytes[hostStart ..< authorityEnd]
        let scheme = lowercased(bytes[..<schemeEnd])
        var origin = scheme + "://" + lowercased(hostPort)
        if !hasPort(hostPort), let port = defaultPort(scheme) { origin += ":" + port }
        return origin
    }

    /// ASCII letters lowered byte by byte; text with other letters as `String.lowercased` does.
    private static func lowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self).lowercased() }
        return String(unsafeUninitializedCapacity: bytes.count) { out in
            for (i, byte) in bytes.enumerated() { out[i] = (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte }
            return bytes.count
        }
    }

    private static func hasPort(_ hostPort: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let colon = UInt8(ascii: ":")
        guard hostPort.first == UInt8(ascii: "[") else { return hostPort.contains(colon) }
        return zip(hostPort, hostPort.dropFirst()).contains { $0 == UInt8(ascii: "]") && $1 == colon }
    }

    private static func defaultPort(_ scheme: String) -> String? {
        switch scheme {
        case "http": "80"
        case "https": "443"
        case "ftp": "21"
        case "ftps": "990"
        default: nil
        }
    }
}

extension DownloadOptions {
    /// The request options as the details view shows them, secrets masked; none when unset.
    public var requestDetailLines: [String] {
        var lines: [String] = []
        for header in headers ?? [] { lines.append("Header:        " + RequestHeader.masked(header)) }
        if let userAgent { lines.append("User-Agent:    " + userAgent) }
        if let referer { lines.append("Referer:       " + URLCheck.withoutPassword(referer)) }
        if let cookieFile { lines.append("Cookies from:  " + cookieFile) }
        if let saveCookies { lines.append("Cookies to:    " + saveCookies) }
        for mirror in mirrors ?? [] { lines.append("Mirror:        " + URLCheck.withoutPassword(mirror)) }
        return lines
    }
}
