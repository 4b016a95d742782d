import Foundation

/// A command line as browsers' "Copy as cURL" writes it (Chromium's and Firefox's, quoted for
/// bash: '…', "…", $'…', backslash line ends), turned into one download with the request's
/// headers, cookies, agent, referer and credentials. What tdl cannot do with it (a POST body,
/// another method, an option of curl's own) is named in `notApplied`, not silently lost.
public struct CurlCommand: Equatable, Sendable {
    public var request: DownloadRequest
    /// "--data-raw: tdl downloads with GET" — one entry per option tdl left out.
    public var notApplied: [String]

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notCurl
        case unbalancedQuote
        case noURL
        case missingValue(String)
        case unsafe(String)
        public var description: String {
            switch self {
            case .notCurl: return "not a curl command (it starts with curl)"
            case .unbalancedQuote: return "a quote is not closed"
            case .noURL: return "the curl command has no URL"
            case .missingValue(let option): return "\(option) needs a value"
            case .unsafe(let problem): return problem
            }
        }
    }

    /// Whether text typed or pasted where URLs are expected is a curl command.
    public static func looksLikeOne(_ text: String) -> Bool {
        isCurl(String(text.trimmingWhitespace().prefix { $0 != " " && $0 != "\t" && $0 != "\n" }))
    }

    /// "curl" or a path to it ("/usr/bin/curl"), not a URL that ends in /curl.
    static func isCurl(_ word: String) -> Bool {
        word == "curl" || word.hasSuffix("/curl") && !word.contains(":")
    }

    /// Options of curl's that take a value, beside those read below: skipped with their value.
    static let skippedWithValue: Set<String> = [
        "--connect-timeout", "-m", "--max-time", "--retry", "--retry-delay", "--retry-max-time", "-w", "--write-out",
        "--resolve", "--interface", "--cacert", "--capath", "-E", "--cert", "--key", "-x", "--proxy", "-U",
        "--proxy-user", "-r", "--range", "-z", "--time-cond", "--limit-rate", "-Y", "--speed-limit", "-y",
        "--speed-time", "--max-redirs", "--dns-servers", "--connect-to", "-C", "--continue-at", "--max-filesize",
        "-T", "--upload-file", "--oauth2-bearer", "--url-query", "--variable", "--config", "-K",
    ]
    /// Flags that change nothing about the file's bytes.
    static let harmlessFlags: Set<String> = [
        "-L", "--location", "-s", "--silent", "-S", "--show-error", "-v", "--verbose", "-f", "--fail", "-g", "--globoff",
        "-O", "--remote-name", "-J", "--remote-header-name", "--compressed", "-#", "--progress-bar", "--http1.1",
        "--http2", "--http2-prior-knowledge", "--http3", "--tlsv1.2", "--tlsv1.3", "-4", "-6", "--ipv4", "--ipv6",
        "--no-buffer", "-N", "--tr-encoding", "--path-as-is", "--location-trusted", "-i", "--include", "-n", "--netrc",
    ]
    /// Headers a download sends on its own terms: an encoding would make the server compress
    /// the file (tdl saves the bytes as sent), and tdl asks for ranges itself.
    static let droppedHeaders: Set<String> = ["accept-encoding", "connection", "keep-alive", "te", "host", "content-length"]

    public static func parse(_ text: String) throws -> CurlCommand {
        let words = try tokens(text)
        guard let first = words.first, isCurl(first) else { throw Problem.notCurl }
        var url: String?
        var options = DownloadOptions()
        var headers: [String] = []
        var cookies: [String] = []
        var user: String?
        var notApplied: [String] = []
        var k = 1
        func value(_ option: String) throws -> String {
            k += 1
            guard k < words.count else { throw Problem.missingValue(option) }
            return words[k]
        }
        while k < words.count {
            var word = words[k]
            var inline: String?
            // --opt=value is curl's too only for a few; "-Hvalue" short forms are.
            if word.hasPrefix("-"), !word.hasPrefix("--"), word.count > 2,
               ["-H", "-b", "-A", "-e", "-u", "-o", "-X", "-d"].contains(String(word.prefix(2))) {
                inline = String(word.dropFirst(2))
                word = String(word.prefix(2))
            }
            func take() throws -> String {
                if let inline { return inline }
                return try value(word)
            }
            switch word {
            case "--url": url = try take()
            case "-H", "--header":
                let header = try take()
                // A line break would be a header the user never wrote: the whole command is refused.
                if let problem = RequestText.problem(inValue: header) { throw Problem.unsafe("-H \(RequestHeader.masked(header)): \(problem)") }
                let name = RequestHeader.name(of: header)
                let headerValue = String(header.drop { $0 != ":" }.dropFirst().trimmingWhitespace())
                if name == "user-agent" { options.userAgent = headerValue }
                else if name == "referer" { options.referer = headerValue }
                else if name == "cookie" { cookies.append(headerValue) }
                else if droppedHeaders.contains(name) || headerValue.isEmpty { break }
                else if let problem = RequestHeader.problem(with: header) {
                    notApplied.append("-H \(RequestHeader.masked(header)): \(problem)")
                } else {
                    headers.append(header)
                }
            case "-b", "--cookie":
                let cookie = try take()
                // A pair is a cookie; a word without "=" names a cookies.txt file.
                if cookie.contains("=") { cookies.append(cookie) } else { options.cookieFile = cookie }
            case "-c", "--cookie-jar": options.saveCookies = try take()
            case "-A", "--user-agent": options.userAgent = try take()
            case "-e", "--referer":
                let referer = try take()
                options.referer = referer.hasSuffix(";auto") ? String(referer.dropLast(5)) : referer
            case "-u", "--user": user = try take()
            case "-o", "--output": options.fileName = try take()
            case "-X", "--request":
                let method = try take()
                if method.uppercased() != "GET" { notApplied.append("-X \(method): tdl downloads with GET") }
            case "-d", "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "-F", "--form", "--json":
                _ = try take()
                notApplied.append("\(word): tdl downloads with GET, without a request body")
            case "-k", "--insecure":
                notApplied.append("\(word): give --insecure to tdl get itself")
            case "-I", "--head":
                notApplied.append("\(word): tdl downloads the body")
            default:
                if word.hasPrefix("-") && word.count > 1 {
                    if skippedWithValue.contains(word) {
                        _ = try take()
                        notApplied.append("\(word)")
                    } else if harmlessFlags.contains(word) || isHarmlessCluster(word) {
                        break
                    } else {
                        notApplied.append("\(word)")
                    }
                } else if url == nil {
                    url = word
                } else {
                    notApplied.append("\(URLCheck.withoutPassword(word)): one URL per download")
                }
            }
            k += 1
        }
        guard var url else { throw Problem.noURL }
        if !cookies.isEmpty { headers.append("Cookie: " + cookies.joined(separator: "; ")) }
        if !headers.isEmpty { options.headers = headers }
        if let problem = RequestText.problem(in: options) { throw Problem.unsafe(problem) }
        if let user { url = withCredentials(url, user) }
        return CurlCommand(request: DownloadRequest(url: url, options: options), notApplied: notApplied)
    }

    /// "-sSL" and the like: short flags that all change nothing.
    static func isHarmlessCluster(_ word: String) -> Bool {
        guard word.hasPrefix("-"), !word.hasPrefix("--"), word.count > 2 else { return false }
        return word.dropFirst().allSatisfy { harmlessFlags.contains("-" + String($0)) }
    }

    /// `-u user:password` as credentials in the URL, where tdl reads them (and masks them).
    static func withCredentials(_ url: String, _ user: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        let allowed = CharacterSet.urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@"))
        let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        components.percentEncodedUser = parts[0].addingPercentEncoding(withAllowedCharacters: allowed)
        if parts.count == 2 { components.percentEncodedPassword = parts[1].addingPercentEncoding(withAllowedCharacters: allowed) }
        return components.string ?? url
    }

    /// Splits a command line as bash does for words: quotes, backslashes, `$'…'` escapes,
    /// a backslash before a line end joining lines. (No expansion: `$HOME` stays as written.)
    static func tokens(_ text: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        let chars = Array(text.unicodeScalars)
        var i = 0
        func append(_ s: Unicode.Scalar) { current.unicodeScalars.append(s); inWord = true }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current); current = ""; inWord = false }
                i += 1
            case "\\":
                if i + 1 < chars.count {
                    let next = chars[i + 1]
                    if next == "\n" { i += 2; continue }
                    if next == "\r", i + 2 < chars.count, chars[i + 2] == "\n" { i += 3; continue }
                    append(next)
                    i += 2
                } else {
                    i += 1
                }
            case "'":
                inWord = true
                i += 1
                while i < chars.count && chars[i] != "'" { append(chars[i]); i += 1 }
                guard i < chars.count else { throw Problem.unbalancedQuote }
                i += 1
            case "\"":
                inWord = true
                i += 1
                while i < chars.count && chars[i] != "\"" {
                    if chars[i] == "\\", i + 1 < chars.count, "$`\"\\\n".unicodeScalars.contains(chars[i + 1]) {
                        if chars[i + 1] != "\n" { append(chars[i + 1]) }
                        i += 2
                    } else {
                        append(chars[i])
                        i += 1
                    }
                }
                guard i < chars.count else { throw Problem.unbalancedQuote }
                i += 1
            case "$" where i + 1 < chars.count && chars[i + 1] == "'":
                inWord = true
                i += 2
                var closed = false
                while i < chars.count {
                    let d = chars[i]
                    if d == "'" { closed = true; i += 1; break }
                    guard d == "\\", i + 1 < chars.count else { append(d); i += 1; continue }
                    let e = chars[i + 1]
                    i += 2
                    switch e {
                    case "n": append("\n")
                    case "t": append("\t")
                    case "r": append("\r")
                    case "a": append("\u{07}")
                    case "b": append("\u{08}")
                    case "e", "E": append("\u{1B}")
                    case "f": append("\u{0C}")
                    case "v": append("\u{0B}")
                    case "x", "u", "U":
                        let maxDigits = e == "x" ? 2 : e == "u" ? 4 : 8
                        var digits = ""
                        while digits.count < maxDigits, i < chars.count, chars[i].properties.isASCIIHexDigit {
                            digits.unicodeScalars.append(chars[i])
                            i += 1
                        }
                        if let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) { append(scalar) }
                    case "0", "1", "2", "3", "4", "5", "6", "7":
                        var digits = String(e)
                        while digits.count < 3, i < chars.count, ("0"..."7").contains(chars[i]) {
                            digits.unicodeScalars.append(chars[i])
                            i += 1
                        }
                        if let value = UInt32(digits, radix: 8), let scalar = Unicode.Scalar(value) { append(scalar) }
                    default: append(e)  // \\ \' \" and the rest stand for themselves
                    }
                }
                guard closed else { throw Problem.unbalancedQuote }
            default:
                append(c)
                i += 1
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

extension DownloadManager {
    /// Adds the download a pasted curl command describes (the screen's add prompt); returns
    /// what to tell the user, and whether it is an error.
    public func add(curlCommand text: String) -> (message: String, isError: Bool) {
        let command: CurlCommand
        do { command = try CurlCommand.parse(text) } catch { return ("curl command: \(error)", true) }
        let result = add([command.request])
        if let rejected = (result.rejected + result.notApplied).first { return ("\(URLCheck.withoutPassword(rejected.url)): \(rejected.reason)", true) }
        var message = result.added.isEmpty ? "already in the list" : "added 1 download from a curl command"
        if !command.notApplied.isEmpty { message += "; not applied: " + command.notApplied.joined(separator: ", ") }
        return (message, false)
    }
}
