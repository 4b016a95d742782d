import Foundation
import TDLTestSupport
import XCTest

/// aria2p's retry against `tdl serve` (a failed download's URI added again, then the old GID's
/// result removed), the GIDs after a relaunch, and a wrong checksum given over JSON-RPC.
final class Aria2RetryTests: XCTestCase {
    var python: String { Aria2pTests.venv + "/bin/python" }
    var site: TemporaryDirectory!
    var home: TemporaryDirectory!
    var downloads: TemporaryDirectory!
    var serve: (Process, Pipe)?

    override class func setUp() { Aria2pTests.setUp() }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: python), "aria2p could not be installed (run make test-deps)")
        site = TemporaryDirectory("tdl-retry-site")
        home = TemporaryDirectory()
        downloads = TemporaryDirectory()
    }

    override func tearDown() { stopServe() }

    /// Starts `tdl serve` on a new port; returns the port.
    func startServe() throws -> Int {
        let port = RefusingPort.make()
        serve = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port),
                                                          "--rpc-secret", "sesame"], environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        return port
    }

    func stopServe() {
        guard let (process, _) = serve, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Runs a Python script with aria2p's client `c` and API `api` on `port`; its stdout's JSON.
    func aria2p(_ port: Int, _ body: String, _ arguments: [String] = []) throws -> [String: Any] {
        let script = site.file("s\(UUID().uuidString.prefix(8)).py")
        try ("""
            import aria2p, json, sys, time
            c = aria2p.Client(host="http://127.0.0.1", port=\(port), secret="sesame")
            api = aria2p.API(c)
            def wait_status(gid, wanted, timeout=30):
                end, last = time.time() + timeout, None
                while time.time() < end:
                    last = c.tell_status(gid, ["status"])["status"]
                    if last in wanted:
                        return last
                    time.sleep(0.1)
                raise SystemExit(f"{gid} is {last}, not {wanted}")

            """ + body).write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script] + arguments, timeout: 90)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
    }

    func testAria2psRetryGetsANewGIDKeepsTheFileAndARelaunchAnswersTheSameGIDs() throws {
        _ = try TestFiles.make(site.file("other.bin"), size: 300_000, seed: 5)
        let nginx = try LoopbackNginx(root: site.path)
        var port = try startServe()
        // late.bin is not there yet: the download fails (404). Then it is, and aria2p retries.
        let first = try aria2p(port, """
            d = api.add_uris([sys.argv[1]])
            wait_status(d.gid, ["error"])
            open(sys.argv[2], "wb").write(bytes(range(256)) * 1000)
            d.update()
            print(json.dumps({"old": d.gid, "retried": api.retry_downloads([d])}), flush=True)
            """, [nginx.url("late.bin"), site.file("late.bin")])
        let old = try XCTUnwrap(first["old"] as? String)
        XCTAssertEqual(first["retried"] as? [Bool], [true])
        let second = try aria2p(port, """
            ds = api.get_downloads()
            new = [d.gid for d in ds if d.gid != sys.argv[1]]
            wait_status(new[0], ["complete"])
            # A download still in a queue, added again: a new GID, the old one removed.
            p1 = c.add_uri([sys.argv[2]], {"pause": "true"})
            p2 = c.add_uri([sys.argv[2]], {"pause": "true"})
            print(json.dumps({"gids": [d.gid for d in ds], "new": new[0], "p1": p1, "p2": p2,
                              "p1status": c.tell_status(p1, ["status", "errorCode"])}))
            """, [old, nginx.url("other.bin")])
        let new = try XCTUnwrap(second["new"] as? String)
        XCTAssertEqual(second["gids"] as? [String], [new], "the old GID's result is gone, the new attempt stays")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("late.bin")), try Processes.sha256(ofFile: site.file("late.bin")))
        XCTAssertEqual(second["p1status"] as? [String: String], ["status": "removed", "errorCode": "31"])
        let (p1, p2) = (try XCTUnwrap(second["p1"] as? String), try XCTUnwrap(second["p2"] as? String))
        XCTAssertNotEqual(p1, p2)

        // A relaunch answers the same GIDs.
        stopServe()
        port = try startServe()
        let after = try aria2p(port, """
            def status(gid):
                try:
                    return c.tell_status(gid, ["gid", "status"])
                except aria2p.ClientException as error:
                    return str(error)
            print(json.dumps({g: status(g) for g in sys.argv[1:]}))
            """, [old, new, p1, p2])
        XCTAssertEqual(after[new] as? [String: String], ["gid": new, "status": "complete"])
        XCTAssertEqual(after[p1] as? [String: String], ["gid": p1, "status": "removed"])
        XCTAssertEqual(after[p2] as? [String: String], ["gid": p2, "status": "paused"])
        XCTAssertEqual(after[old] as? String, "GID \(old) is not found")
    }

    /// A wrong `checksum` over JSON-RPC: error 32 after one pass over the bytes, as aria2.
    func testAWrongChecksumOverRPCFailsAfterOnePass() throws {
        let faults = try FaultServer()
        let size = 2_000_000
        let port = try startServe()
        let report = try aria2p(port, """
            gid = c.add_uri([sys.argv[1]], {"checksum": "sha-256=" + "0" * 64})
            seen = []
            end = time.time() + 30
            while time.time() < end:
                s = c.tell_status(gid, ["status", "errorCode", "errorMessage"])
                if not seen or seen[-1] != s["status"]:
                    seen.append(s["status"])
                if s["status"] == "error":
                    break
                time.sleep(0.02)
            print(json.dumps({"seen": seen, "last": s}))
            """, [faults.url("/file/sum.bin?size=\(size)&seed=3")])
        let last = try XCTUnwrap(report["last"] as? [String: String])
        XCTAssertEqual(last["status"], "error")
        XCTAssertEqual(last["errorCode"], "32")
        XCTAssertTrue(last["errorMessage"]?.hasPrefix("Checksum error detected. file=") == true, "\(last)")
        XCTAssertEqual((report["seen"] as? [String])?.last, "error")
        XCTAssertLessThan(try faults.bodyBytesSent(), size + size / 2, "the bytes were downloaded once")
    }

    /// A paused download removed leaves aria2 no result, but its partial file stays (as
    /// aria2's does): the URI added again goes on from it, with a new GID.
    func testARemovedPausedDownloadAddedAgainGoesOnFromItsPartFile() throws {
        let faults = try FaultServer()
        let size = 2_000_000
        let url = faults.url("/file/again.bin?size=\(size)&seed=4&rate=500000")
        let port = try startServe()
        let removed = try aria2p(port, """
            gid = c.add_uri([sys.argv[1]])
            end = time.time() + 30
            while int(c.tell_status(gid, ["completedLength"])["completedLength"]) < 800000 and time.time() < end:
                time.sleep(0.05)
            c.force_pause(gid)
            wait_status(gid, ["paused"])
            c.remove(gid)
            try:
                missing = c.tell_status(gid, ["status"])
            except aria2p.ClientException as e:
                missing = e.message
            print(json.dumps({"gid": gid, "missing": missing, "stopped": c.tell_stopped(0, 10, ["gid"]),
                              "numStopped": c.get_global_stat()["numStopped"]}))
            """, [url])
        let old = try XCTUnwrap(removed["gid"] as? String)
        XCTAssertEqual(removed["missing"] as? String, "GID \(old) is not found")
        XCTAssertEqual((removed["stopped"] as? [Any])?.count, 0)
        XCTAssertEqual(removed["numStopped"] as? String, "0")
        let parts = try FileManager.default.contentsOfDirectory(atPath: downloads.path).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(parts.count, 1, "the partial file stays")
        let kept = try parts.first.map { try FileManager.default.attributesOfItem(atPath: downloads.file($0))[.size] as? Int }
        XCTAssertGreaterThan((kept ?? nil) ?? 0, 0)

        let again = try aria2p(port, """
            gid = c.add_uri([sys.argv[1]])
            wait_status(gid, ["complete"])
            print(json.dumps({"gid": gid, "path": c.get_files(gid)[0]["path"]}))
            """, [url])
        XCTAssertNotEqual(again["gid"] as? String, old)
        let path = try XCTUnwrap(again["path"] as? String)
        XCTAssertEqual(try Processes.sha256(ofFile: path), try faults.sha256(name: "again.bin", size: size, seed: 4))
        // Going on from the partial file: the bytes before the remove are not fetched again.
        XCTAssertLessThan(try faults.bodyBytesSent(), size + 400_000, "the bytes were downloaded once")
    }
}
