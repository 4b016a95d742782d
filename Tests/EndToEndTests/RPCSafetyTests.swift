import Foundation
import XCTest
import TDLTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tdl serve` is safe by default: a secret it makes itself, no web page of another origin,
/// no name but its own, no local files or folders outside the download folder over JSON-RPC,
/// and a listener that outlives running out of descriptors. Requests are made with curl, as
/// a page's would be made by a browser (`BrowserTests` has the browser itself).
final class RPCSafetyTests: XCTestCase {
    var home: TemporaryDirectory!
    var downloads: TemporaryDirectory!
    var port = 0
    var serve: (Process, Pipe)?

    override func setUpWithError() throws {
        try XCTSkipUnless(Processes.which("curl") != nil, "curl is missing (run make test-deps)")
        home = TemporaryDirectory()
        downloads = TemporaryDirectory()
        port = RefusingPort.make()
    }

    override func tearDown() { stopServe() }

    func startServe(_ extra: [String] = [], limitDescriptors: Int? = nil) throws {
        let arguments = ["serve", "-d", downloads.path, "--rpc-listen-port", String(port)] + extra
        if let limitDescriptors {
            // The shell lowers its own limit, then becomes tdl.
            serve = try Processes.start("/bin/sh", ["-c", "ulimit -n \(limitDescriptors) && exec \"$0\" \"$@\"", Processes.tdlBinary] + arguments,
                                        environment: ["TDL_HOME": home.path])
        } else {
            serve = try Processes.start(Processes.tdlBinary, arguments, environment: ["TDL_HOME": home.path])
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
    }

    /// Ends tdl serve; its stderr.
    @discardableResult
    func stopServe() -> String {
        guard let (process, stderr) = serve else { return "" }
        serve = nil
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    var secret: String {
        (try? String(contentsOfFile: RPCSafetyTests.secretPath(home.path), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    static func secretPath(_ home: String) -> String { (home as NSString).appendingPathComponent("rpc-secret") }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: String
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
        var errorMessage: String? { (json?["error"] as? [String: Any])?["message"] as? String }
    }

    /// One request with curl: `headers` as given (`Origin`, `Host`, `Content-Type`…).
    func request(_ body: String?, method: String = "POST", headers: [String] = [], timeout: Double = 5) throws -> Answer {
        var arguments = ["-s", "-i", "--max-time", String(timeout), "-X", method]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let result = try Processes.run("/usr/bin/curl", arguments + ["http://127.0.0.1:\(port)/jsonrpc"], timeout: timeout + 5)
        var text = result.stdout
        while text.hasPrefix("HTTP/1.1 100"), let end = text.range(of: "\r\n\r\n") { text = String(text[end.upperBound...]) }
        guard let split = text.range(of: "\r\n\r\n") else { return Answer(status: 0, headers: [:], body: text) }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n").drop { !$0.hasPrefix("HTTP/") }
        let status = head.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Answer(status: status, headers: fields, body: String(text[split.upperBound...]))
    }

    func call(_ method: String, _ params: [Any], token: String? = nil, headers: [String] = []) throws -> Answer {
        let all: [Any] = (token.map { ["token:" + $0] } ?? []) + params
        let body = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": "t", "method": "aria2." + method, "params": all])
        return try request(String(decoding: body, as: UTF8.self), headers: headers)
    }

    func listedURLs() throws -> [String] {
        let json = try Processes.tdl(["list", "--json"], home: home.path)
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.compactMap { $0["url"] as? String }
    }

    /// A client without the token is refused by default; the secret tdl made is owner-only,
    /// named on stderr, and the same on the next run (also after `--rpc-secret ""`).
    func testACallWithoutTheTokenIsRefusedAndTheSecretIsOwnerOnlyAndKept() throws {
        try startServe()
        XCTAssertEqual(try call("getVersion", []).errorMessage, "Unauthorized")
        XCTAssertEqual(try call("addUri", [["http://127.0.0.1:1/x"]]).errorMessage, "Unauthorized")
        let first = secret
        XCTAssertEqual(first.count, 64, "32 random bytes as hex")
        var info = stat()
        XCTAssertEqual(lstat(Self.secretPath(home.path), &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG)
        XCTAssertNotNil(try call("getVersion", [], token: first).json?["result"])
        let log = stopServe()
        XCTAssertTrue(log.contains(Self.secretPath(home.path)) && log.contains("aria2p -s"), log)
        XCTAssertTrue(try listedURLs().isEmpty)
        try startServe(["--rpc-secret", ""])
        XCTAssertEqual(secret, first, "the same secret on the next run")
        XCTAssertNotNil(try call("getVersion", [], token: first).json?["result"])
        stopServe()
        // A secret given on the command line is the session's, and the made one no longer opens it.
        try startServe(["--rpc-secret", "sesame"])
        XCTAssertEqual(try call("getVersion", [], token: first).errorMessage, "Unauthorized")
        XCTAssertNotNil(try call("getVersion", [], token: "sesame").json?["result"])
        stopServe()
        // A secret file others can read is refused, not used.
        chmod(Self.secretPath(home.path), 0o644)
        let refused = try Processes.tdl(["serve", "-d", downloads.path, "--rpc-listen-port", String(port), "--rpc-secret", ""], home: home.path, timeout: 10)
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("can be read by others"), refused.stderr)
    }

    /// A page of another origin (a text/plain POST, a preflight, a WebSocket) and a request
    /// for another name (DNS rebinding) are refused, even carrying the secret; nothing of them
    /// is carried out. An allowed origin gets its own origin back; allow-all gets "*" and a warning.
    func testForeignOriginsAndNamesAreRefusedAllowedOnesAnswered() throws {
        try startServe()
        let token = secret
        let page = "http://127.0.0.1:8765"
        let evil = try call("addUri", [["http://127.0.0.1:1/from-page"]], token: token,
                            headers: ["Origin: http://evil.example", "Content-Type: text/plain"])
        XCTAssertEqual(evil.status, 403)
        XCTAssertNil(evil.headers["access-control-allow-origin"])
        let rebound = try call("addUri", [["http://127.0.0.1:1/rebound"]], token: token, headers: ["Host: evil.example:\(port)"])
        XCTAssertEqual(rebound.status, 403)
        let preflight = try request(nil, method: "OPTIONS", headers: ["Origin: http://evil.example", "Access-Control-Request-Method: POST"])
        XCTAssertEqual(preflight.status, 403)
        XCTAssertNil(preflight.headers["access-control-allow-origin"])
        let upgrade = ["Origin: http://evil.example", "Connection: Upgrade", "Upgrade: websocket",
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        XCTAssertEqual(try request(nil, method: "GET", headers: upgrade, timeout: 2).status, 403)
        XCTAssertEqual(try call("getVersion", [], token: token, headers: ["Host: localhost:\(port)"]).status, 200)
        XCTAssertTrue(try listedURLs().isEmpty, "nothing a refused request asked was done")
        stopServe()

        try startServe(["--rpc-allow-origin", page])
        let allowed = try call("getVersion", [], token: token, headers: ["Origin: \(page)", "Content-Type: text/plain"])
        XCTAssertEqual(allowed.status, 200)
        XCTAssertEqual(allowed.headers["access-control-allow-origin"], page)
        let allowedPreflight = try request(nil, method: "OPTIONS", headers: ["Origin: \(page)", "Access-Control-Request-Method: POST"])
        XCTAssertEqual(allowedPreflight.status, 204)
        XCTAssertEqual(allowedPreflight.headers["access-control-allow-origin"], page)
        XCTAssertEqual(try request(nil, method: "GET", headers: ["Origin: \(page)"] + upgrade.dropFirst(), timeout: 2).status, 101)
        XCTAssertEqual(try call("getVersion", [], token: token, headers: ["Origin: http://evil.example"]).status, 403)
        stopServe()
        // The session keeps the allowed origin.
        try startServe()
        XCTAssertEqual(try call("getVersion", [], token: token, headers: ["Origin: \(page)"]).headers["access-control-allow-origin"], page)
        stopServe()

        try startServe(["--rpc-allow-origin-all"])
        XCTAssertEqual(try call("getVersion", [], token: token, headers: ["Origin: http://evil.example"]).headers["access-control-allow-origin"], "*")
        XCTAssertTrue(stopServe().contains("warning: --rpc-allow-origin-all"))
    }

    /// With the secret still: no file: URL, no folder outside the download folder (`..`, a
    /// symlink out), no path as a name, no hook; `--rpc-allowed-dir` opens another folder.
    func testLocalFilesFoldersOutsideAndHooksAreRefusedEvenWithTheSecret() throws {
        let outside = TemporaryDirectory()
        let privateFile = outside.file("private")
        try "secret data".write(toFile: privateFile, atomically: true, encoding: .utf8)
        chmod(privateFile, 0o600)
        try FileManager.default.createSymbolicLink(atPath: downloads.file("escape"), withDestinationPath: outside.path)
        try startServe()
        let token = secret
        func refused(_ method: String, _ params: [Any], _ words: String, line: UInt = #line) throws {
            let answer = try call(method, params, token: token)
            XCTAssertEqual((answer.json?["error"] as? [String: Any])?["code"] as? Int, 1, answer.body, line: line)
            XCTAssertTrue(answer.errorMessage?.contains(words) ?? false, answer.body, line: line)
        }
        try refused("addUri", [["file://" + privateFile]], "not")
        let autostart = outside.path + "/.config/autostart"
        for dir in [autostart, downloads.path + "/../" + (outside.path as NSString).lastPathComponent, downloads.file("escape"),
                    downloads.file("escape") + "/new"] {
            try refused("addUri", [["http://127.0.0.1:1/x.desktop"], ["dir": dir]], "outside")
            try refused("changeGlobalOption", [["dir": dir]], "outside")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.path + "/.config"), "no folder was made")
        try refused("addUri", [["http://127.0.0.1:1/x"], ["out": "../x"]], "file name")
        try refused("addUri", [["http://127.0.0.1:1/x"], ["on-download-complete": "/bin/sh"]], "runs a command")
        try refused("changeGlobalOption", [["on-download-complete": "/bin/sh"]], "runs a command")
        XCTAssertTrue(try listedURLs().isEmpty)
        XCTAssertEqual(try call("getGlobalOption", [], token: token).json.flatMap { ($0["result"] as? [String: Any])?["dir"] as? String },
                       downloads.path, "the session's folder stays")
        // A password in a URL is not read back.
        XCTAssertNotNil(try call("addUri", [["http://user:hunter2@127.0.0.1:1/p"], ["pause": "true"]], token: token).json?["result"])
        let stopped = try call("tellWaiting", [0, 10], token: token)
        XCTAssertTrue(stopped.body.contains("user:***@") && !stopped.body.contains("hunter2"), stopped.body)
        stopServe()

        try startServe(["--rpc-allowed-dir", outside.path])
        let added = try call("addUri", [["http://127.0.0.1:1/y"], ["dir": outside.path + "/sub", "pause": "true"]], token: token)
        XCTAssertNotNil(added.json?["result"], added.body)
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside.path + "/sub"))
        XCTAssertNotNil(try call("shutdown", [], token: token).json?["result"], "shutdown stays allowed")
    }

    /// A burst of connections past tdl's descriptor limit: the listener rests, says so, and
    /// answers the next call once the burst is gone.
    func testTheListenerAnswersAgainAfterDescriptorsRanOut() throws {
        try startServe(limitDescriptors: 96)
        let token = secret
        var sockets: [Int32] = []
        for _ in 0..<300 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 { sockets.append(fd) } else { close(fd) }
        }
        usleep(1_000_000)
        for fd in sockets { close(fd) }
        var answer: Answer?
        _ = try Processes.waitUntil(timeout: 10, interval: 0.2) {
            answer = try call("getVersion", [], token: token)
            return answer?.status == 200
        }
        XCTAssertEqual(answer?.status, 200, answer?.body ?? "")
        XCTAssertNotNil(answer?.json?["result"])
        let log = stopServe()
        XCTAssertTrue(log.contains("stopped accepting connections"), log)
    }
}
