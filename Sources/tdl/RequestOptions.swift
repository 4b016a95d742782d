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

    func validate() throws {
        for header in headers {
            if let problem = RequestHeader.problem(with: header) { throw ValidationError("-H \(RequestHeader.masked(header)): \(problem)") }
        }
        if let loadCookies, !FileManager.default.isReadableFile(atPath: loadCookies) {
            throw ValidationError("--load-cookies: cannot read \(loadCookies)")
        }
    }

    /// These options as a download's (unset where not given).
    var downloadOptions: DownloadOptions {
        DownloadOptions(headers: headers.isEmpty ? nil : headers, userAgent: userAgent, referer: referer,
                        cookieFile: loadCookies.map(Paths.absolute), saveCookies: saveCookies.map(Paths.absolute))
    }
}
