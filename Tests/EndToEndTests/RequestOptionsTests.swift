import Foundation
import TDLTestSupport
import XCTest

/// Headers, agent, referer and cookies of the user's, from the command line, an input file
/// and the saved session, against a fault-server file that refuses requests without them.
final class RequestOptionsTests: FaultServerTestCase {
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()

    override func setUpWithError() throws {
        try super.setUpWithError()
        try server.reset()
    }

    static let referer = "https://shop.example/order/7"
    /// A file served only with the cookie session=abc, that Referer and a browser's agent.
    func protected(_ name: String, seed: Int, host: String = "127.0.0.1", cookie: String = "session=abc") -> String {
        let query = "size=300000&seed=\(seed)&need_cookie=\(cookie)&need_agent=Mozilla&need_referer="
            + Self.referer.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "http://\(host):\(server.port)/file/\(name)?\(query)"
    }

    func get(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads.path] + arguments, home: home.path,
                          environment: ["TDL_RETRY_BASE": "0.05"])
    }

    func assertDownloaded(_ name: String, seed: Int, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try server.sha256(name: name, size: 300_000, seed: seed), line: line)
    }

    /// A cookies.txt as browsers' extensions and `curl -c` write it; `#HttpOnly_` marks a line too.
    func cookies() throws -> String {
        let path = work.file("cookies.txt")
        try """
            # Netscape HTTP Cookie File
            127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc
            #HttpOnly_127.0.0.1\tFALSE\t/file\tFALSE\t0\ttheme\tdark
            localhost\tFALSE\t/\tFALSE\t0\tlocal\tyes

            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testWithoutTheCookieRefererAndAgentTheServerRefuses() throws {
        let result = try get([protected("refused.bin", seed: 1)])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("403"), result.stderr)
    }

    /// Each domain of the cookies.txt gets its own cookies only: 127.0.0.1 and localhost are
    /// two hosts to curl's cookie engine, though one server.
    func testCookiesFileCookiesGoOnlyToTheirDomain() throws {
        let viaIP = protected("ip.bin", seed: 2)
        let viaName = protected("name.bin", seed: 3, host: "localhost", cookie: "local=yes")
        let result = try get(["--load-cookies", try cookies(), "--user-agent", "Mozilla/5.0 (X11; Linux x86_64)",
                              "--referer", Self.referer, viaIP, viaName])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("ip.bin", seed: 2)
        try assertDownloaded("name.bin", seed: 3)
        XCTAssertEqual(Set(try server.cookieNames(sentTo: "/file/ip.bin")), ["session", "theme"])
        XCTAssertEqual(try server.cookieNames(sentTo: "/file/name.bin"), ["local"])
    }

    func testHeaderOptionsCarryTheCookie() throws {
        let result = try get(["-H", "Cookie: session=abc", "-H", "X-Requested-With: tdl", "--user-agent", "Mozilla/5.0",
                              "--referer", Self.referer, protected("header.bin", seed: 4)])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("header.bin", seed: 4)
        XCTAssertGreaterThan(try server.requests(to: "/file/header.bin", carrying: "X-Requested-With"), 0)
    }

    /// The user's headers, Referer and Cookie stay with the host they were given for; a redirect
    /// to another port gets none of them (the agent goes along, as a browser's does).
    func testARedirectToAnotherPortGetsNoneOfTheHeaders() throws {
        let other = try FaultServer()
        let destination = other.url("/file/moved.bin?size=300000&seed=5")
        let start = server.url("/abs-redirect?to=" + destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let result = try get(["-H", "Authorization: Bearer s3cret", "-H", "X-Api-Key: k3y", "-H", "Cookie: session=abc",
                              "--referer", Self.referer, "--user-agent", "Mozilla/5.0", start])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("moved.bin")), try other.sha256(name: "moved.bin", size: 300_000, seed: 5))
        for name in ["X-Api-Key", "Authorization", "Cookie", "Referer"] {
            XCTAssertGreaterThan(try server.requests(to: "/abs-redirect", carrying: name), 0, "\(name) reached its own host")
            XCTAssertEqual(try other.requests(to: "/file/moved.bin", carrying: name), 0, "\(name) followed the redirect")
        }
        XCTAssertGreaterThan(try other.requests(to: "/file/moved.bin", carrying: "User-Agent"), 0)
    }

    /// `header=`, `user-agent=`, `referer=` and `load-cookies=` under a URL of an input file.
    func testInputFileLinesCarryTheRequestOptions() throws {
        let input = work.file("urls.txt")
        try """
            \(protected("listed.bin", seed: 6))
              header=X-Requested-With: tdl
              user-agent=Mozilla/5.0 (X11)
              referer=\(Self.referer)
              load-cookies=\(try cookies())
            """.write(toFile: input, atomically: true, encoding: .utf8)
        let result = try get(["-i", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("listed.bin", seed: 6)
    }

    /// `tdl add` with the options saves them with the task: the tdl that downloads it later
    /// sends them (the same request goes through the control socket to a running tdl).
    func testTheSessionKeepsTheRequestOptions() throws {
        let url = protected("later.bin", seed: 7)
        let add = try Processes.tdl(["add", "-d", downloads.path, "-H", "Cookie: session=abc", "--user-agent", "Mozilla/5.0",
                                     "--referer", Self.referer, url], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        let get = try Processes.tdl(["get", "-q", "--all"], home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        try assertDownloaded("later.bin", seed: 7)
    }

    /// A secret in a header is never printed: a refused request's message and `tdl list` name the URL only.
    func testSecretsInHeadersAreNotShown() throws {
        let result = try get(["-H", "Authorization: Bearer t0psecret", "-H", "Cookie: session=c00kie", server.url("/file/gone.bin?status=404")])
        XCTAssertEqual(result.status, 1)
        let list = try Processes.tdl(["list"], home: home.path)
        for text in [result.stderr, list.stdout] {
            XCTAssertFalse(text.contains("t0psecret") || text.contains("c00kie"), text)
        }
        let bad = try get(["-H", "Authorization Bearer t0psecret", server.url("/file/x.bin")])
        XCTAssertEqual(bad.status, 2, bad.stderr)  // a value tdl cannot use is bad input
        XCTAssertFalse(bad.stderr.contains("t0psecret"), bad.stderr)
    }

    /// A browser's "Copy as cURL" pasted to `tdl get --curl` (and `tdl add --curl`): its
    /// cookie, Referer and agent open the protected file; what tdl cannot do is named.
    func testAPastedCurlCommandBecomesTheDownload() throws {
        let url = protected("pasted.bin", seed: 8)
        let curl = """
            curl '\(url)' \\
              -H 'accept: */*' \\
              -b 'session=abc; theme=dark' \\
              -H 'referer: \(Self.referer)' \\
              -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0' \\
              -H 'accept-encoding: gzip, deflate, br' \\
              --data-raw 'a=1' \\
              --compressed
            """
        let result = try get(["--curl", curl])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("pasted.bin", seed: 8)
        XCTAssertTrue(result.stderr.contains("not applied: --data-raw"), result.stderr)
        XCTAssertEqual(try server.requests(to: "/file/pasted.bin", carrying: "Accept-Encoding"), 0)

        let added = try Processes.tdl(["add", "--curl", curl.replacingOccurrences(of: "pasted.bin", with: "added.bin")], home: home.path)
        XCTAssertEqual(added.status, 0, added.stderr)
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains("added.bin"), list.stdout)
    }

    /// `tdl add` with request options, sent through the control socket to a running `tdl get`:
    /// the options travel with the request and the running tdl sends them.
    func testARunningTdlSendsTheOptionsOfAnAddedURL() throws {
        let (running, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-q", "-d", downloads.path,
                                                                           server.url("/file/slow.bin?size=400000&seed=9&rate=200000")],
                                                     environment: ["TDL_HOME": home.path])
        defer { if running.isRunning { running.terminate() } }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: home.file("default.sock")) })
        let add = try Processes.tdl(["add", "-d", downloads.path, "-H", "Cookie: session=abc", "--user-agent", "Mozilla/5.0",
                                     "--referer", Self.referer, protected("handed.bin", seed: 10)], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("added"), add.stdout)
        running.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(running.terminationStatus, 0, message)
        try assertDownloaded("handed.bin", seed: 10)
    }

    /// `--save-cookies` writes the file's cookies and the server's new one, cookies.txt style.
    func testSaveCookiesWritesTheJar() throws {
        let jar = work.file("jar.txt")
        let result = try get(["--load-cookies", try cookies(), "--save-cookies", jar,
                              server.url("/file/jar.bin?size=1000&set_cookie=fresh=baked")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let saved = try String(contentsOfFile: jar, encoding: .utf8)
        XCTAssertTrue(saved.contains("\tsession\tabc"), saved)
        XCTAssertTrue(saved.contains("\tfresh\tbaked"), saved)
    }
}
