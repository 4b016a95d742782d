import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who may reach the JSON-RPC at all, from a request's `Host` and `Origin` headers alone.
///
/// Every web page the user opens can send requests to a port on 127.0.0.1: a `text/plain`
/// POST needs no preflight (its side effect happens whatever the answer's headers say), and a
/// WebSocket needs none either. Browsers always name the page's origin in `Origin`, so a
/// request carrying one is answered only when the user allowed that origin. Programs (aria2p,
/// curl, python) send none and are let through to the secret. `Host` is checked so that a page
/// whose name was rebound to 127.0.0.1 (DNS rebinding) is refused as well.
public struct RPCAccess: Sendable, Equatable {
    /// Origins the user allowed, as `normalizedOrigin` writes them.
    public var allowedOrigins: Set<String>
    /// aria2's `--rpc-allow-origin-all`: every origin, answered with `*`.
    public var allowsEveryOrigin: Bool
    /// Listening on every address: any IP literal, and this machine's name, may be the Host.
    public var listenAll: Bool
    public var port: Int
    /// This machine's host name, for `listenAll`.
    var machineName: String?

    public init(allowedOrigins: [String] = [], allowsEveryOrigin: Bool = false, listenAll: Bool = false, port: Int = 6800) {
        self.allowedOrigins = Set(allowedOrigins.compactMap(Self.normalizedOrigin))
        self.allowsEveryOrigin = allowsEveryOrigin
        self.listenAll = listenAll
        self.port = port
        var name = [CChar](repeating: 0, count: 256)
        machineName = gethostname(&name, name.count) == 0 ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased() : nil
    }

    public enum Verdict: Equatable {
        /// Answer; `allowOrigin` is the `Access-Control-Allow-Origin` to send (nil: none).
        case allowed(allowOrigin: String?)
        case refused(String)
    }

    /// Whether a request with these headers is answered, and with which CORS header.
    public func verdict(host: String?, origin: String?) -> Verdict {
        // HTTP/1.1 clients always send Host; one without it is not a browser.
        if let host, !answers(host: host) {
            return .refused("tdl's JSON-RPC does not answer to the name \"\(host)\" (use 127.0.0.1 or localhost)")
        }
        guard let origin else { return .allowed(allowOrigin: nil) }
        if allowsEveryOrigin { return .allowed(allowOrigin: "*") }
        guard let normalized = Self.normalizedOrigin(origin) else {
            return .refused("tdl's JSON-RPC does not answer web pages of the origin \"\(origin)\"")
        }
        if allowedOrigins.contains(normalized) || isOwn(origin: normalized) { return .allowed(allowOrigin: origin) }
        return .refused("tdl's JSON-RPC does not answer web pages of \(normalized): "
                        + "allow it with tdl serve --rpc-allow-origin \(normalized)")
    }

    /// The names this server answers to: loopback names, and with `listenAll` any address
    /// literal and the machine's own name. A name an attacker controls never passes, whatever
    /// it resolves to. The port is not checked: a proxy may forward from another.
    func answers(host header: String) -> Bool {
        let name = Self.hostName(header)
        if name == "localhost" || name == "::1" || Self.isIPv4(name) && name.hasPrefix("127.") { return true }
        guard listenAll else { return false }
        if Self.isIPv4(name) || Self.isIPv6(name) { return true }
        guard let machineName, !machineName.isEmpty else { return false }
        return name == machineName || name == machineName + ".local"
    }

    /// A page served at this server's own address (as websocket-client names its origin by
    /// default): tdl serves no page, so nobody else's script runs there.
    func isOwn(origin: String) -> Bool {
        guard origin.hasPrefix("http://") else { return false }
        let authority = String(origin.dropFirst("http://".count))
        guard let colon = authority.lastIndex(of: ":"), authority[authority.index(after: colon)...] == String(port)[...] else {
            return false
        }
        return answers(host: authority)
    }

    /// `scheme://host[:port]`, lower case, without a default port or a trailing slash; "null"
    /// (pages opened from disk, sandboxed frames) stays "null". Nil for anything else.
    public static func normalizedOrigin(_ text: String) -> String? {
        var origin = text.trimmingCharacters(in: .whitespaces).lowercased()
        if origin == "null" { return origin }
        while origin.hasSuffix("/") { origin.removeLast() }
        guard let schemeEnd = origin.range(of: "://") else { return nil }
        let scheme = origin[..<schemeEnd.lowerBound]
        let authority = origin[schemeEnd.upperBound...]
        guard !scheme.isEmpty, !authority.isEmpty, !authority.contains("/"), !authority.contains("@"),
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        for (name, port) in [("http", ":80"), ("https", ":443")] where scheme == name && authority.hasSuffix(port) {
            return String(origin.dropLast(port.count))
        }
        return origin
    }

    /// The name of a Host header: without the port or the brackets of an IPv6 address, lower
    /// case, without a trailing dot.
    static func hostName(_ header: String) -> String {
        var text = header.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex) ..< close])
        }
        if let colon = text.lastIndex(of: ":") { text = String(text[..<colon]) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func isIPv4(_ name: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, name, &address) == 1
    }

    static func isIPv6(_ name: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, name, &address) == 1
    }
}
