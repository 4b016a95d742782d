import Foundation
import TDLTestSupport
import XCTest

/// aria2p (from PyPI, in a venv of the build folder) drives `tdl serve` and `tdl --rpc` as it
/// drives aria2: its command line, its Python API and its WebSocket notification listener,
/// against files served by nginx.
final class Aria2pTests: XCTestCase {
    static let venv = Processes.packageRoot + "/.build/aria2p"
    var aria2p: String { Self.venv + "/bin/aria2p" }
    var python: String { Self.venv + "/bin/python" }

    override class func setUp() {
        // `make test` installs it (scripts/install-deps.sh --test); a test run on its own too.
        if !FileManager.default.isExecutableFile(atPath: venv + "/bin/aria2p") {
            _ = try? Processes.run(Processes.packageRoot + "/scripts/install-deps.sh", ["--aria2p"], timeout: 300)
        }
    }

    var site: TemporaryDirectory!
    var home: TemporaryDirectory!
    var downloads: TemporaryDirectory!
    var nginx: LoopbackNginx!
    var port = 0
    var serve: (Process, Pipe)?

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: aria2p), "aria2p could not be installed (run make test-deps)")
        site = TemporaryDirectory("tdl-rpc-site")
        home = TemporaryDirectory()
        downloads = TemporaryDirectory()
        // 8 connections of 256 KiB/s each: a 6 MB file takes some 3 s, time enough to pause it.
        _ = try TestFiles.make(site.file("small.bin"), size: 1_500_000, seed: 11)
        _ = try TestFiles.make(site.file("big.bin"), size: 6_000_000, seed: 12)
        _ = try TestFiles.make(site.file("other.bin"), size: 6_000_000, seed: 13)
        nginx = try LoopbackNginx(root: site.path, rateLimit: "256k")
        // A port the system just handed out, where nothing listens: a random one could be
        // another test's server or connection, and tdl serve would then refuse to start.
        port = RefusingPort.make()
    }

    override func tearDown() {
        if let (process, _) = serve, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    func startServe(_ extra: [String] = []) throws {
        serve = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port)] + extra,
                                    environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
    }


    /// The secret tdl made in the home (aria2p's `-s`, its client's `secret=`).
    var madeSecret: String {
        (try? String(contentsOfFile: home.file("rpc-secret"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    @discardableResult
    func cli(_ arguments: [String], secret: String? = "sesame", file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Processes.run(aria2p, ["-p", String(port)] + (secret.map { ["-s", $0] } ?? []) + arguments, timeout: 30)
        XCTAssertEqual(result.status, 0, "aria2p \(arguments): \(result.stdout)\(result.stderr)", file: file, line: line)
        return result.stdout
    }

    /// `tdl list --json`, by URL.
    func listed() throws -> [String: [String: Any]] {
        let json = try Processes.tdl(["list", "--json"], home: home.path)
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["url"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    func state(_ url: String) throws -> String? { try listed()[url]?["state"] as? String }

    func waitForState(_ url: String, _ wanted: Set<String>, timeout: Double = 30) throws {
        var last: String?
        _ = try Processes.waitUntil(timeout: timeout, interval: 0.2) {
            last = try state(url)
            return last.map(wanted.contains) ?? false
        }
        XCTAssertTrue(last.map(wanted.contains) ?? false, "\(url) is \(last ?? "gone"), not \(wanted)")
    }

    func testAria2pCommandLineAgainstTdlServe() throws {
        try startServe(["--rpc-secret", "sesame"])
        let small = nginx.url("small.bin"), big = nginx.url("big.bin")
        let added = try cli(["add", small, big])
        let gids = added.matches(of: #/Created download ([0-9a-f]{16})/#).map { String($0.1) }
        XCTAssertEqual(gids.count, 2, added)
        guard gids.count == 2 else { return }
        let (smallGID, bigGID) = (gids[0], gids[1])
        // Without the secret nothing is answered.
        let refused = try Processes.run(aria2p, ["-p", String(port), "call", "getglobalstat"], timeout: 30)
        XCTAssertTrue((refused.stdout + refused.stderr).contains("Unauthorized"), refused.stdout + refused.stderr)

        try cli(["pause", bigGID])
        try waitForState(big, ["paused"])
        XCTAssertTrue(try cli(["show"]).contains("\(bigGID)  paused"))
        try cli(["resume", bigGID])
        try waitForState(big, ["downloading", "waiting"])
        try cli(["pause", "--all"])
        for url in [small, big] { try waitForState(url, ["paused", "done"]) }
        try cli(["resume", "--all"])
        for url in [small, big] { try waitForState(url, ["done"]) }
        for name in ["small.bin", "big.bin"] {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try Processes.sha256(ofFile: site.file(name)), name)
        }

        // What aria2p shows agrees with tdl list --json: states and bytes.
        let shown = try cli(["show"])
        XCTAssertTrue(shown.contains("\(smallGID)  complete") && shown.contains("\(bigGID)  complete"), shown)
        let stopped = try cli(["call", "tellStopped", "-J", "[0, 10]"])
        let structs = try JSONSerialization.jsonObject(with: Data(stopped.utf8)) as? [[String: Any]] ?? []
        let list = try listed()
        for (gid, url) in [(smallGID, small), (bigGID, big)] {
            let s = structs.first { $0["gid"] as? String == gid }
            XCTAssertEqual(s?["status"] as? String, "complete")
            XCTAssertEqual(Int(s?["completedLength"] as? String ?? ""), list[url]?["received"] as? Int)
            XCTAssertEqual(Int(s?["totalLength"] as? String ?? ""), list[url]?["size"] as? Int)
        }

        // remove forgets the download (its file stays); purge forgets the rest.
        try cli(["remove", smallGID])
        XCTAssertNil(try listed()[small])
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("small.bin")))
        try cli(["purge"])
        XCTAssertTrue(try listed().isEmpty)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("big.bin")))

        try cli(["call", "shutdown"])
        let (process, stderr) = serve!
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { !process.isRunning }, "tdl serve did not stop")
        XCTAssertEqual(process.terminationStatus, 0)
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        for line in ["started \(big)", "paused \(big)", "finished \(small)", "stopped (aria2.shutdown)"] {
            XCTAssertTrue(log.contains(line), "no \"\(line)\" in:\n\(log)")
        }
    }

    func testAria2pPythonAPIAndItsNotificationListener() throws {
        try startServe()
        let script = site.file("api.py")
        try """
            import aria2p, json, sys, threading, time
            api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=int(sys.argv[1]), secret="\(madeSecret)"))
            heard, lock = [], threading.Lock()
            def on(kind):
                def callback(api_, gid):
                    with lock:
                        heard.append([kind, gid])
                return callback
            api.listen_to_notifications(threaded=True, timeout=1, on_download_start=on("start"),
                on_download_pause=on("pause"), on_download_stop=on("stop"),
                on_download_complete=on("complete"), on_download_error=on("error"))
            time.sleep(1)
            def wait_for(kind, gid, count=1):
                end = time.time() + 30
                while time.time() < end:
                    with lock:
                        if heard.count([kind, gid]) >= count:
                            return
                    time.sleep(0.05)
                raise SystemExit(f"never heard {kind} for {gid}: {heard}")
            d = api.add_uris([sys.argv[2]])
            wait_for("start", d.gid)
            api.pause([d])
            wait_for("pause", d.gid)
            api.resume([d])
            wait_for("start", d.gid, 2)
            wait_for("complete", d.gid)
            e = api.add_uris([sys.argv[3]])
            wait_for("error", e.gid)
            f = api.add_uris([sys.argv[4]], options={"out": "renamed.bin", "max-download-limit": "100K"})
            wait_for("start", f.gid)
            api.pause([f])
            wait_for("pause", f.gid)
            f.update()
            options = api.get_options([f])[0]
            api.remove([f])
            time.sleep(0.5)  # time for a stop notification, were one sent
            downloads = [{"gid": x.gid, "status": x.status, "completed": x.completed_length,
                          "total": x.total_length, "name": x.name, "error": x.error_code} for x in api.get_downloads()]
            api.stop_listening()
            print(json.dumps({"heard": heard, "downloads": downloads, "gids": [d.gid, e.gid, f.gid],
                              "out": options.get("out"), "limit": options.get("max-download-limit")}))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script, String(port), nginx.url("small.bin"), nginx.url("missing.bin"), nginx.url("other.bin")],
                                       timeout: 90)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let gids = report["gids"] as? [String] ?? []
        let heard = (report["heard"] as? [[String]] ?? []).map { "\($0[0]) \(gids.firstIndex(of: $0[1]).map { ["d", "e", "f"][$0] } ?? "?")" }
        XCTAssertEqual(heard.filter { $0.hasSuffix("d") }, ["start d", "pause d", "start d", "complete d"])
        XCTAssertEqual(heard.filter { $0.hasSuffix("e") }, ["start e", "error e"])
        // f was paused when removed: aria2 tells no stop for a download out of the waiting queue.
        XCTAssertEqual(heard.filter { $0.hasSuffix("f") }, ["start f", "pause f"])
        XCTAssertEqual(report["out"] as? String, "renamed.bin")
        XCTAssertEqual(report["limit"] as? String, "100000")  // K is 1000 in tdl, as it shows sizes (README, "One unit system")

        // What the API saw agrees with tdl list --json.
        let list = try listed()
        let downloads = report["downloads"] as? [[String: Any]] ?? []
        XCTAssertEqual(downloads.count, 2, "the removed download is forgotten: \(downloads)")
        let complete = downloads.first { $0["gid"] as? String == gids.first }
        XCTAssertEqual(complete?["status"] as? String, "complete")
        XCTAssertEqual(complete?["completed"] as? Int, list[nginx.url("small.bin")]?["received"] as? Int)
        XCTAssertEqual(list[nginx.url("small.bin")]?["state"] as? String, "done")
        let failed = downloads.first { $0["gid"] as? String == gids[1] }
        XCTAssertEqual(failed?["status"] as? String, "error")
        XCTAssertEqual(failed?["error"] as? String, "3")
        XCTAssertEqual(list[nginx.url("missing.bin")]?["state"] as? String, "failed")
        XCTAssertNil(list[nginx.url("other.bin")])
        XCTAssertEqual(try Processes.sha256(ofFile: self.downloads.file("small.bin")), try Processes.sha256(ofFile: site.file("small.bin")))

        // SIGTERM ends it cleanly too.
        let (process, _) = serve!
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// What a read answers right after a call that changed a download, through aria2p's
    /// client against `tdl serve`: reads are answered from the status the loop publishes, which
    /// a changing call has brought up to date before its answer.
    func testReadsRightAfterEachChangeSeeIt() throws {
        try startServe()
        let script = site.file("reads.py")
        try """
            import aria2p, json, sys, time
            c = aria2p.Client(host="http://127.0.0.1", port=int(sys.argv[1]), secret="\(madeSecret)")
            def status(gid):
                return c.tell_status(gid, ["status"])["status"]
            seen = {}
            big = c.add_uri([sys.argv[2]])
            seen["added"] = status(big)
            lengths, end = [], time.time() + 30
            while time.time() < end and len(set(lengths)) < 4:
                s = c.tell_status(big, ["status", "completedLength"])
                if s["status"] != "active":
                    break
                lengths.append(int(s["completedLength"]))
                time.sleep(0.1)
            c.pause(big)
            seen["paused"] = status(big)
            c.unpause(big)
            seen["unpaused"] = status(big)
            c.remove(big)
            seen["removed"] = status(big)
            small = c.add_uri([sys.argv[3]])
            end = time.time() + 30
            while time.time() < end and status(small) != "complete":
                time.sleep(0.05)
            done = c.tell_status(small)
            print(json.dumps({"seen": seen, "lengths": lengths, "complete": done["status"],
                              "completed": done["completedLength"], "total": done["totalLength"]}))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script, String(port), nginx.url("big.bin"), nginx.url("small.bin")], timeout: 90)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(report["seen"] as? [String: String],
                       ["added": "active", "paused": "paused", "unpaused": "active", "removed": "removed"])
        let lengths = report["lengths"] as? [Int] ?? []
        XCTAssertEqual(lengths, lengths.sorted(), "completedLength only grows")
        XCTAssertGreaterThanOrEqual(Set(lengths).count, 3, "completedLength grows while downloading: \(lengths)")
        XCTAssertEqual(report["complete"] as? String, "complete")
        XCTAssertEqual(report["completed"] as? String, "1500000")
        XCTAssertEqual(report["total"] as? String, "1500000")
    }

    /// `scripts/soak-rpc.py --top` for 20 s: aria2p adds, pauses, unpauses, removes, retries and
    /// purges downloads, a new connection a call, while a kept-alive session polls tellActive
    /// with pauses of its own (up to 11 s, past the 10 s a request may take) and `aria2p top`
    /// (curses, in tmux) watches. Every call is answered; at the end top still runs, its log
    /// holds no traceback, no "RemoteDisconnected" and no request that timed out, and it showed
    /// the downloads. Without tmux the soak runs without top and only top's checks are left out.
    /// The same script runs for an hour outside the suite (README, "A soak with front ends").
    func testASoakOfFrontEndCallsIsEveryOneAnsweredAndTopOutlivesIt() throws {
        let withTop = Processes.which("tmux") != nil
        if withTop {
            var probe = try Processes.run(python, ["-c", "import asciimatics"], timeout: 30)
            if probe.status != 0 {  // a venv made before top was needed
                _ = try? Processes.run(Processes.packageRoot + "/scripts/install-deps.sh", ["--aria2p"], timeout: 300)
                probe = try Processes.run(python, ["-c", "import asciimatics"], timeout: 30)
            }
            XCTAssertEqual(probe.status, 0, "aria2p top needs aria2p[tui] (scripts/install-deps.sh --aria2p): \(probe.stderr)")
        }
        try startServe()
        let urls = ["small.bin", "big.bin", "other.bin", "missing.bin"].map(nginx.url)
        let seconds = 20
        let result = try Processes.run(python, [Processes.packageRoot + "/scripts/soak-rpc.py", "--port", String(port),
                                                "--secret", madeSecret, "--seconds", String(seconds), "--pause-max", "11"]
                                                + (withTop ? ["--top"] : []) + urls,
                                       timeout: 120)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
        XCTAssertEqual(report["failures"] as? Int, 0, result.stdout)
        // Five calls a second and a screen with the downloads every other second, as over 40 s.
        XCTAssertGreaterThan(report["calls"] as? Int ?? 0, 5 * seconds, result.stdout)
        XCTAssertTrue(serve?.0.isRunning ?? false, "tdl serve is still running")
        guard withTop else { return }  // tmux is not installed (make test-deps): top's checks need it
        let top = try XCTUnwrap(report["top"] as? [String: Any], result.stdout)
        XCTAssertEqual(top["running"] as? Bool, true, "aria2p top ended: \(top)")
        XCTAssertEqual((top["problems"] as? [String])?.isEmpty, true, "aria2p top logged: \(top)")
        XCTAssertGreaterThan(top["screens_with_downloads"] as? Int ?? 0, seconds / 2, "aria2p top showed the downloads: \(top)")
    }

    /// aria2p's "move to top" reorders tdl's waiting queue, and the slot that frees starts the
    /// download moved, not the one added first.
    func testADownloadMovedToTheTopStartsNext() throws {
        try startServe()
        let script = site.file("move.py")
        try """
            import aria2p, json, sys, time
            api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=int(sys.argv[1]), secret="\(madeSecret)"))
            api.set_global_options({"max-concurrent-downloads": "1"})
            running = api.add_uris([sys.argv[2]])
            first, second = api.add_uris([sys.argv[3]]), api.add_uris([sys.argv[4]])
            def waiting():
                return [d.gid for d in api.get_downloads() if d.status == "waiting"]
            before = waiting()
            second.move_to_top()
            after = waiting()
            api.remove([running])
            end, active = time.time() + 30, []
            while not active and time.time() < end:
                active = [d.gid for d in api.get_downloads() if d.status == "active"]
                time.sleep(0.05)
            print(json.dumps({"before": before, "after": after, "active": active, "gids": [first.gid, second.gid]}))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script, String(port), nginx.url("big.bin"), nginx.url("small.bin"), nginx.url("other.bin")],
                                       timeout: 60)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String]], result.stdout)
        let (first, second) = (report["gids"]![0], report["gids"]![1])
        XCTAssertEqual(report["before"], [first, second])
        XCTAssertEqual(report["after"], [second, first])
        XCTAssertEqual(report["active"], [second], "the download moved to the top starts when the slot frees")
    }

    /// On every address as on 127.0.0.1, a client without the secret is refused; a port in use is said so.
    func testEveryAddressNeedsTheSecretTooAndATakenPortIsSaidSo() throws {
        try startServe(["--rpc-listen-all"])
        let refused = try Processes.run(aria2p, ["-p", String(port), "call", "getglobalstat"], timeout: 30)
        XCTAssertTrue((refused.stdout + refused.stderr).contains("Unauthorized"), refused.stdout + refused.stderr)
        XCTAssertTrue(try cli(["call", "getglobalstat"], secret: madeSecret).contains("numActive"))
        let taken = try Processes.tdl(["serve", "--session", "other", "-d", downloads.path, "--rpc-listen-port", String(port)], home: home.path)
        XCTAssertEqual(taken.status, 2)
        XCTAssertTrue(taken.stderr.contains("in use"), taken.stderr)
    }

    func testAURLAddedByAria2pAppearsOnTheScreenWithinASecond() throws {
        let tmuxBinary = try XCTUnwrap(Processes.which("tmux"))
        let socket = "tdl-rpc-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        defer { Processes.spawnDetached(tmuxBinary, ["-L", socket, "kill-server"]) }
        func screen() throws -> String { try Processes.run(tmuxBinary, ["-L", socket, "capture-pane", "-p", "-t", "tdl"], timeout: 10).stdout }
        let command = "TDL_HOME=\(home.path) \(Processes.tdlBinary) --rpc --rpc-listen-port \(port) -d \(downloads.path); echo EXITED $?; sleep 30"
        Processes.spawnDetached(tmuxBinary, ["-L", socket, "new-session", "-d", "-s", "tdl", "-x", "120", "-y", "25", command])
        XCTAssertTrue(try Processes.waitUntil(timeout: 20, interval: 0.1) { try screen().contains("No downloads yet") && LoopbackNginx.canConnect(port) })
        try cli(["add", nginx.url("big.bin")], secret: madeSecret)
        let added = Date()
        var shown = ""
        _ = try Processes.waitUntil(timeout: 5, interval: 0.05) {
            shown = try screen()
            return shown.contains("big.bin")
        }
        XCTAssertLessThan(Date().timeIntervalSince(added), 1, "the row came late or never:\n\(shown)")
        // aria2.shutdown quits the list, which saves the session.
        try cli(["call", "shutdown"], secret: madeSecret)
        let quit = try Processes.waitUntil(timeout: 10, interval: 0.1) { try screen().contains("EXITED 0") }
        let last = try screen()
        XCTAssertTrue(quit, last)
        XCTAssertNotNil(try listed()[nginx.url("big.bin")])
    }
}
