import Foundation

/// The spelling of a URL that is a task's identity: `HTTP://Example.org:80/x#top` and
/// `http://example.org/x` fetch the same bytes, so they are one task, not a task and a
/// `name (1)` copy. The scheme and host go lower-case, the scheme's default port and the
/// fragment (never sent to a server) are dropped; the path and query stay as written, since
/// a server may tell their cases apart. Applied wherever a URL enters (`DownloadManager.add`,
/// the commands that name tasks).
public enum URLIdentity {
    static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ftp": 21, "ftps": 990]

    public static func normalized(_ text: String) -> String {
        if isNormalPlainURL(text) { return text }
        // Cut by hand: rebuilding through `URLComponents` re-encodes what it dislikes in the
        // path (`%zz` became `%25zz`), which would be another URL.
        guard let separator = text.range(of: "://") else { return text }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return text }
        let afterScheme = text[separator.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        var rest = afterScheme[authorityEnd...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }  // never sent to a server
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[...$0] } ?? ""
        let hostPort = at.map { authority[authority.index(after: $0)...] } ?? authority
        // The port follows the last ":" outside an IPv6 literal's brackets.
        var host = hostPort, port: Substring?
        if let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") {
            host = hostPort[..<colon]
            port = hostPort[hostPort.index(after: colon)...]
        }
        var normalized = scheme + "://" + userInfo + host.lowercased()
        if let port, !(Int(port).map { defaultPorts[scheme] == $0 } ?? false) { normalized += ":" + port }
        return normalized + rest
    }

    /// Nearly every URL: a plain web URL (see `PlainWebURL`, which takes no fragment) whose
    /// host is lower-case and whose port, if any, is not the default. Told by its bytes alone.
    static func isNormalPlainURL(_ text: String) -> Bool {
        guard PlainWebURL.matches(text) else { return false }
        let utf8 = text.utf8
        let hostStart = utf8.index(utf8.startIndex, offsetBy: utf8.starts(with: "https://".utf8) ? 8 : 7)
        let authorityEnd = utf8[hostStart...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        let authority = utf8[hostStart ..< authorityEnd]
        if authority.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) { return false }
        guard let portColon = authority.firstIndex(of: UInt8(ascii: ":")) else { return true }
        // Compared as bytes: a string made for the port was an allocation per URL of an add.
        let port = authority[authority.index(after: portColon)...]
        return !port.elementsEqual((utf8.starts(with: "https://".utf8) ? "443" : "80").utf8)
    }
}
