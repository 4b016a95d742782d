import Foundation

/// aria2's JSON-RPC over HTTP GET: `/jsonrpc?method=M&id=I&params=P`, where P is the JSON
/// array of parameters, base64-encoded then percent-encoded; without `method` and `id`, P is a
/// whole request (a batch). With `jsoncallback=cb` the answer is JSONP, `cb(answer)`, for a
/// page's `<script src>`, which sends no Origin: the secret token is what refuses such a page.
struct RPCGetCall: Equatable {
    /// The request as aria2 builds it (`id` is a string), nil when it is not JSON.
    let request: JSON?
    let callback: String?

    /// nil when the callback is not a plain JavaScript name (it is written into the answer).
    init?(query: String) {
        var method: String?, id: String?, params: String?, callback: String?
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            if item.hasPrefix("method=") { method = Self.decoded(item.dropFirst(7)) }
            else if item.hasPrefix("id=") { id = Self.decoded(item.dropFirst(3)) }
            else if item.hasPrefix("params=") { params = String(item.dropFirst(7)) }
            else if item.hasPrefix("jsoncallback=") { callback = String(item.dropFirst(13)) }
        }
        if let callback, !Self.isName(callback) { return nil }
        self.callback = callback?.isEmpty == true ? nil : callback
        let given = params.flatMap(Self.base64JSON)
        if params != nil && given == nil {
            request = nil
        } else if method == nil && id == nil {
            request = given
        } else {
            var call: [(String, JSON)] = []
            if let method { call.append(("method", .string(method))) }
            if let id { call.append(("id", .string(id))) }
            if let given { call.append(("params", given)) }
            request = .object(call)
        }
    }

    /// The answer's bytes, wrapped for JSONP when a callback was given.
    func wrap(_ answer: Data) -> Data {
        guard let callback else { return answer }
        return Data("\(callback)(".utf8) + answer + Data(")".utf8)
    }

    var contentType: String { callback == nil ? "application/json-rpc" : "text/javascript" }

    private static func decoded(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }

    /// Percent-decoded, then base64 (padding optional, as browsers' `btoa` output is often
    /// trimmed), then JSON.
    private static func base64JSON(_ text: String) -> JSON? {
        var base64 = (text.removingPercentEncoding ?? text).filter { !$0.isWhitespace }
        base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        return try? JSON.parse(bytes)
    }

    /// Letters, digits, `_`, `$` and `.` (jQuery's `jQuery123_456`, `ns.cb`): nothing that
    /// could end the call and run something else.
    private static func isName(_ text: String) -> Bool {
        text.count <= 128 && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_$.".unicodeScalars.contains($0)
        }
    }
}
