import Foundation

/// The one check of text a request carries in its headers, whatever its source (`-H`,
/// `--user-agent`, `--referer`, a cookies.txt, an input file, a pasted curl command, the
/// screen's prompts, an RPC caller, the saved session): CR, LF or NUL would end the header line
/// and start one the user never wrote, so each is refused with words.
public enum RequestText {
    public static let refusal = "CR, LF and NUL are refused in a header (they would start another one)"

    /// Nil when `value` may go into a header line.
    public static func problem(inValue value: String) -> String? {
        value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } ? refusal : nil
    }

    /// The first header, agent, referer or cookie of `options` that cannot be sent, named.
    /// `readingCookieFile: false` where a loop must not read files (curl refuses control
    /// bytes in a cookies.txt value itself; the sources check the file when it is given).
    public static func problem(in options: DownloadOptions, readingCookieFile: Bool = true) -> String? {
        for header in options.headers ?? [] {
            if let problem = RequestHeader.problem(with: header) { return "header \(RequestHeader.masked(header)): \(problem)" }
        }
        if let agent = options.userAgent, let problem = problem(inValue: agent) { return "user-agent: \(problem)" }
        if let referer = options.referer, let problem = problem(inValue: referer) { return "referer: \(problem)" }
        if readingCookieFile, let file = options.cookieFile { return problem(inCookieFile: file) }
        return nil
    }

    /// A cookies.txt whose line holds a CR (other than before its line end) or a NUL: curl
    /// would send such a value as it is. A file that cannot be read is for the caller to report.
    public static func problem(inCookieFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let body = line.last == 0x0D ? line.dropLast() : line[...]
            if body.contains(0x0D) || body.contains(0) { return "load-cookies \(path), line \(index + 1): \(refusal)" }
        }
        return nil
    }
}
