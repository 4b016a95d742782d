import ArgumentParser
import Foundation
import TDLCore
import TDLSession

/// What each request of this command carries: headers, agent, referer, cookies. Kept by the
/// session with each download, as its other options.
struct RequestOptions: ParsableArguments {
    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("Send this header, e.g. 'Authorization: Bearer T' (repeatable; only to the URL's own host).", valueName: "name: value"))
    var headers: [String] = []

    @Option(help: ArgumentHelp("The User-Agent header (default tdl/VERSION).", valueName: "text"))
    var userAgent: String?

    @Option(help: ArgumentHelp("The Referer header.", valueName: "url"))
    var referer: String?

    @Option(help: ArgumentHelp("Send the cookies of this Netscape cookies.txt, each only to its own domain.", valueName: "file"))
    var loadCookies: String?

    @Option(help: ArgumentHelp("Write the cookies (the file's and the servers') to this cookies.txt.", valueName: "file"))
    var saveCookies: String?

    @Option(help: ArgumentHelp("Another URL of the same file (repeatable): the connections share the file's segments over all of them.", valueName: "url"))
    var mirror: [String] = []

    @Option(help: ArgumentHelp("A command line as a browser's \"Copy as cURL\" writes it: its URL with its headers, cookies, agent, referer and -u.", valueName: "curl …"))
    var curl: String?

    @Option(help: ArgumentHelp("The queue these downloads run in (see tdl queue).", valueName: "name"))
    var queue: String?

    func validate() throws {
        if let curl {
            do { _ = try CurlCommand.parse(curl) } catch { throw ValidationError("--curl: \(error)") }
        }
        var checked = DownloadOptions()
        for header in headers { try Self.read(.header, header, as: "-H", into: &checked) }
        try Self.read(.userAgent, userAgent, as: "--user-agent", into: &checked)
        try Self.read(.referer, referer, as: "--referer", into: &checked)
        try Self.read(.queue, queue, as: "--queue", into: &checked)
        for url in mirror {
            if let problem = URLCheck.problem(with: url) { throw ValidationError("--mirror \(URLCheck.withoutPassword(url)): \(problem)") }
        }
        if let loadCookies, !FileManager.default.isReadableFile(atPath: loadCookies) {
            throw ValidationError("--load-cookies: cannot read \(loadCookies)")
        }
        if let problem = RequestText.problem(in: downloadOptions) { throw ValidationError(problem) }
    }

    /// The download `--curl` describes, its files' paths made absolute; what it cannot apply is
    /// said on stderr.
    func curlRequest(say: (String) -> Void) -> DownloadRequest? {
        guard let curl, var command = try? CurlCommand.parse(curl) else { return nil }
        for option in command.notApplied { say("--curl: not applied: \(option)") }
        command.request.options.cookieFile = command.request.options.cookieFile.map(Paths.absolute)
        command.request.options.saveCookies = command.request.options.saveCookies.map(Paths.absolute)
        return command.request
    }

    /// Reads the value of a per-download option given on the command line as `spelling`:
    /// `DownloadOption` reads it as it reads an input file's, with the same message for a mistake.
    static func read(_ option: DownloadOption, _ value: String?, as spelling: String, into options: inout DownloadOptions) throws {
        guard let value else { return }
        do {
            try option.read(value, into: &options, absolute: Paths.absolute)
        } catch {
            throw ValidationError(error.message(as: spelling))
        }
    }

    /// These options as a download's (unset where not given).
    var downloadOptions: DownloadOptions {
        DownloadOptions(headers: headers.isEmpty ? nil : headers, userAgent: userAgent, referer: referer,
                        cookieFile: loadCookies.map(Paths.absolute), saveCookies: saveCookies.map(Paths.absolute),
                        mirrors: mirror.isEmpty ? nil : mirror, queue: queue)
    }
}
