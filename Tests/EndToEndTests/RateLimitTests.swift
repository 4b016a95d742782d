import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// A per-file rate limit (aria2's max-download-limit) slows that file and no other.
final class RateLimitTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-rate-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)
    static var setUpError: (any Error)? { get { setUpErrorStore.get() } set { setUpErrorStore.set(newValue) } }
    private static let setUpErrorStore = Locked<(any Error)?>(nil)
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), inputs = TemporaryDirectory()

    override class func setUp() {
        do {
            try TestFiles.make(site.file("limited.bin"), size: 3_000_000, seed: 61)
            try TestFiles.make(site.file("free.bin"), size: 3_000_000, seed: 62)
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            setUpError = error
        }
    }

    /// A missing tool fails every test with its name instead of crashing the run.
    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
    }

    override class func tearDown() { nginx = nil }

    func modified(_ name: String) throws -> Date {
        try FileManager.default.attributesOfItem(atPath: downloads.file(name))[.modificationDate] as! Date
    }

    func assertIdentical(_ name: String, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try Processes.sha256(ofFile: Self.site.file(name)), line: line)
    }

    func testLimitInTheInputFileSlowsOnlyThatFile() throws {
        let input = inputs.file("urls.txt")
        try """
            \(Self.nginx.url("limited.bin"))
              max-download-limit=1M
            \(Self.nginx.url("free.bin"))
            """.write(toFile: input, atomically: true, encoding: .utf8)
        let started = Date()
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "-i", input], home: home.path)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertIdentical("limited.bin")
        try assertIdentical("free.bin")
        // 3 MB at 1 MiB/s is about 2.7 s; nginx on loopback sends the other file at once.
        XCTAssertGreaterThanOrEqual(elapsed, 2.2)
        XCTAssertGreaterThanOrEqual(try modified("limited.bin").timeIntervalSince(try modified("free.bin")), 1.8,
                                    "the unlimited file finished long before the limited one")
    }

    func testMaxDownloadLimitOption() throws {
        let started = Date()
        let result = try Processes.tdl(["get", "-q", "--max-download-limit", "1M", "-d", downloads.path, Self.nginx.url("limited.bin")], home: home.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2.2)
        try assertIdentical("limited.bin")
    }

    /// `tdl add --max-download-limit` caps each file it adds, as `tdl get`'s does: the tdl that
    /// downloads it later keeps to it.
    func testTdlAddTakesMaxDownloadLimit() throws {
        let bad = try Processes.tdl(["add", "--max-download-limit", "fast", Self.nginx.url("limited.bin")], home: home.path)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("--max-download-limit: \"fast\" is not a rate"), bad.stderr)
        let added = try Processes.tdl(["add", "--max-download-limit", "1M", "-d", downloads.path, Self.nginx.url("limited.bin")], home: home.path)
        XCTAssertEqual(added.status, 0, added.stderr)
        let started = Date()
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, Self.nginx.url("limited.bin")], home: home.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2.2)
        try assertIdentical("limited.bin")
    }

    /// `tdl serve --limit-rate` caps the run's total, as aria2's --max-overall-download-limit,
    /// and getGlobalOption says so.
    func testServeTakesLimitRate() throws {
        let port = RefusingPort.make()
        let (serve, _) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port),
                                                                   "--rpc-secret", "s", "--limit-rate", "1M"], environment: ["TDL_HOME": home.path])
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        func call(_ method: String, _ params: [Any]) throws -> [String: Any] {
            let body = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": "r", "method": method, "params": ["token:s"] + params])
            let answer = try Processes.run("/usr/bin/curl", ["-s", "--max-time", "5", "--data-binary", String(decoding: body, as: UTF8.self),
                                                             "http://127.0.0.1:\(port)/jsonrpc"], timeout: 10)
            return try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any] ?? [:]
        }
        let options = try call("aria2.getGlobalOption", [])["result"] as? [String: Any]
        XCTAssertEqual(options?["max-overall-download-limit"] as? String, "1000000")
        let started = Date()
        let gid = try XCTUnwrap(try call("aria2.addUri", [[Self.nginx.url("limited.bin")]])["result"] as? String)
        XCTAssertTrue(try Processes.waitUntil(timeout: 30, interval: 0.1) {
            (try call("aria2.tellStatus", [gid, ["status"]])["result"] as? [String: Any])?["status"] as? String == "complete"
        })
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2.2)
        try assertIdentical("limited.bin")
    }

    func testBadLimitInTheInputFileIsReported() throws {
        let input = inputs.file("urls.txt")
        try "\(Self.nginx.url("free.bin"))\n  max-download-limit=fast\n".write(toFile: input, atomically: true, encoding: .utf8)
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "-i", input], home: home.path)
        XCTAssertTrue(result.stderr.contains("line 2: max-download-limit: \"fast\" is not a rate: give a number with K, M or G, e.g. 500K, 2M or 1048576"), result.stderr)
        try assertIdentical("free.bin")
    }
}
