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
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return nil }
        let scheme = String(url[..<colon]).lowercased()
        let authorityStart = bytes.index(colon, offsetBy: 3)
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var hostStart = authorityStart
        if let at = bytes[authorityStart ..< authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = bytes.index(after: at) }
        var hostPort = String(url[hostStart ..< authorityEnd]).lowercased()
        if !hasPort(hostPort.utf8), let port = defaultPort(scheme) { hostPort += ":" + port }
        return scheme + "://" + hostPort
    }

    // Byte by byte: Foundation's `contains` of a string took a third of a small download's
    // connection set-up.
    private static func hasPort(_ hostPort: String.UTF8View) -> Bool {
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
