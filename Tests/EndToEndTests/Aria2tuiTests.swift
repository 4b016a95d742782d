import Foundation
import TDLTestSupport
import XCTest

/// aria2tui (from PyPI, in .build/aria2-clients) against `tdl serve`: its curses screen in
/// tmux, its command line and the functions its menus call, doing what it was seen to do
/// against Debian's aria2c: empty lists, add, pause, resume, retry, remove, clear.
final class Aria2tuiTests: XCTestCase {
    static let venv = Processes.packageRoot + "/.build/aria2-clients"
    var python: String { Self.venv + "/bin/python" }

    override class func setUp() {
        // `make test` installs it (scripts/install-deps.sh --test); a test run on its own too.
        if !FileManager.default.isExecutableFile(atPath: venv + "/bin/aria2tui") {
            _ = try? Processes.run(Processes.packageRoot + "/scripts/install-deps.sh", ["--aria2-clients"], timeout: 300)
        }
    }

    var site: TemporaryDirectory!
    var home: TemporaryDirectory!
    var userHome: TemporaryDirectory!
    var downloads: TemporaryDirectory!
    var nginx: LoopbackNginx!
    var port = 0
    var serve: Process?

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.venv + "/bin/aria2tui"),
                          "aria2tui could not be installed (run scripts/install-deps.sh --aria2-clients, or make test-deps)")
        site = TemporaryDirectory("tdl-tui-site")
        home = TemporaryDirectory()
        userHome = TemporaryDirectory()
        downloads = TemporaryDirectory()
        _ = try TestFiles.make(site.file("small.bin"), size: 200_000, seed: 41)
        // Capped at 500 kB/s by the script: the big ones still run when it removes them.
        _ = try TestFiles.make(site.file("big.bin"), size: 20_000_000, seed: 42)
        _ = try TestFiles.make(site.file("other.bin"), size: 20_000_000, seed: 43)
        nginx = try LoopbackNginx(root: site.path, rateLimit: "256k")
        port = RefusingPort.make()
        serve = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port),
                                                          "--rpc-secret", "sesame"], environment: ["TDL_HOME": home.path]).0
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        // aria2tui reads ~/.config/aria2tui/config.toml; its startup command would start aria2c.
        let config = userHome.file(".config/aria2tui")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try """
            [general]
            url = "http://127.0.0.1"
            port = \(port)
            token = "sesame"
            startup_commands = ["true"]
            restart_commands = ["true"]
            global_stats_timer = 1
            refresh_timer = 1
            """.write(toFile: config + "/config.toml", atomically: true, encoding: .utf8)
        // Under tmux on a machine without a login session os.getlogin() fails, which aria2tui's
        // list takes for a server that is down (as it does against aria2c there).
        try """
            import os, runpy, sys
            os.getlogin = lambda: "tdl"
            sys.argv = ["aria2tui"] + sys.argv[1:]
            runpy.run_module("aria2tui", run_name="__main__")
            """.write(toFile: userHome.file("run_aria2tui.py"), atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        if let serve, serve.isRunning {
            serve.terminate()
            serve.waitUntilExit()
        }
    }

    func state(_ url: String) throws -> String? {
        let json = try Processes.tdl(["list", "--json"], home: home.path)
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.first { $0["url"] as? String == url }?["state"] as? String
    }

    /// The list on an empty session, then a download added by `aria2tui --add_download`,
    /// paused and resumed with the keys of its menu (Enter on the row, Enter on the first
    /// operation), as on aria2c.
    func testTheScreenShowsAddsPausesAndResumes() throws {
        let tmux = try XCTUnwrap(Processes.which("tmux"), "tmux is not installed (make test-deps)")
        let socket = "tdl-tui-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        defer { Processes.spawnDetached(tmux, ["-L", socket, "kill-server"]) }
        func screen() throws -> String { try Processes.run(tmux, ["-L", socket, "capture-pane", "-p", "-t", "tui"], timeout: 10).stdout }
        func waitForScreen(_ what: String, _ test: (String) -> Bool) throws {
            var shown = ""
            let seen = try Processes.waitUntil(timeout: 8, interval: 0.2) {
                shown = try screen()
                return test(shown)
            }
            XCTAssertTrue(seen, "\(what):\n\(shown)")
        }
        func row(_ shown: String) -> String { shown.split(separator: "\n").first { $0.contains("big.bin") }.map(String.init) ?? "" }
        let command = "HOME=\(userHome.path) \(python) \(userHome.file("run_aria2tui.py")); echo EXITED $?; sleep 30"
        Processes.spawnDetached(tmux, ["-L", socket, "new-session", "-d", "-s", "tui", "-x", "150", "-y", "40", command])
        // An empty list: aria2tui asks for each empty list's options with an empty batch.
        try waitForScreen("the empty list") { $0.contains("0A 0W 0S") }
        let empty = try screen()
        XCTAssertFalse(empty.contains("is down"), empty)

        let big = nginx.url("big.bin")
        let added = try Processes.run(python, [userHome.file("run_aria2tui.py"), "--add_download", big],
                                      environment: ["HOME": userHome.path], timeout: 30)
        XCTAssertTrue(added.stdout.contains("Success! download added"), added.stdout + added.stderr)
        try waitForScreen("the added row") { row($0).contains("active") && $0.contains("1A 0W 0S") }

        for (key, wanted, tdlStates) in [("Pause", "paused", ["paused"]), ("Resume", "active", ["downloading", "waiting"])] {
            try Processes.run(tmux, ["-L", socket, "send-keys", "-t", "tui", "Enter"], timeout: 10)
            try waitForScreen("the operations") { $0.contains("\(key) Download(s)") }
            try Processes.run(tmux, ["-L", socket, "send-keys", "-t", "tui", "Enter"], timeout: 10)
            try waitForScreen("the row \(wanted)") { row($0).contains(wanted) }
            let now = try state(big)
            XCTAssertTrue(now.map(tdlStates.contains) ?? false, "tdl list says \(now ?? "nothing")")
        }
        let last = try screen()
        XCTAssertFalse(last.contains("EXITED"), last)
    }

    /// What aria2tui's menus call (its own functions, as its screen calls them), step by step,
    /// with the rows its list makes of the answers; every call answered in its 0.5 s.
    func testItsCallsSeeWhatTheyDidOnAria2c() throws {
        let script = userHome.file("drive.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script, nginx.url("")], environment: ["HOME": userHome.path], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let steps = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let byName = Dictionary(steps.map { ($0["step"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        func rows(_ step: String) -> [String] { byName[step]?["rows"] as? [String] ?? ["no step \(step): \(result.stdout)"] }
        func value(_ step: String) -> String { byName[step]?["value"] as? String ?? "no step \(step): \(result.stdout)" }
        // As aria2c answered the same script (Debian's 1.37).
        XCTAssertEqual(value("empty"), "True")
        XCTAssertEqual(rows("empty"), [])
        XCTAssertEqual(value("limit"), "OK")
        XCTAssertEqual(rows("wait"), ["complete small.bin", "error missing.bin"])
        XCTAssertEqual(value("retry"), "new GID, error")
        XCTAssertEqual(rows("retry"), ["complete small.bin", "error missing.bin", "error missing.bin"])
        XCTAssertEqual(value("info"), "getFiles getServers! getPeers! getUris! getOption tellStatus")
        let stopped = ["complete small.bin", "error missing.bin", "error missing.bin"]
        XCTAssertEqual(value("add big"), "[None, 'active', 'active']")
        XCTAssertEqual(rows("add big"), ["active big.bin", "active other.bin"] + stopped)
        XCTAssertEqual(value("pause"), "[True, 'paused']")
        XCTAssertEqual(rows("pause"), ["active other.bin"] + stopped + ["paused big.bin"])
        XCTAssertEqual(value("resume"), "[True, 'active']")
        XCTAssertEqual(rows("resume"), ["active big.bin", "active other.bin"] + stopped)
        XCTAssertEqual(rows("remove paused"), ["active big.bin"] + stopped)
        XCTAssertEqual(rows("remove"), ["complete small.bin", "error missing.bin", "error missing.bin", "removed big.bin"])
        XCTAssertEqual(rows("remove result"), ["complete small.bin", "error missing.bin", "error missing.bin"])
        XCTAssertEqual(value("clear"), "OK")
        XCTAssertEqual(rows("clear"), [])
        XCTAssertEqual(steps.compactMap { $0["slow"] as? String }, [], "calls that took aria2tui's 0.5 s")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("small.bin")), try Processes.sha256(ofFile: site.file("small.bin")))
    }

    static let script = #"""
import os, sys, json, time, urllib.request
os.getlogin = lambda: "tdl"
base = sys.argv[1].rstrip("/")
slow, real = [], urllib.request.urlopen
def timed(url, data=None, timeout=None):
    start = time.time()
    try:
        return real(url, data, timeout=timeout)
    finally:
        if time.time() - start > 0.4: slow.append(data.decode()[:80] if data else url)
urllib.request.urlopen = timed
from aria2tui.utils.aria2c import *
from aria2tui.utils.aria2c.cli import add_download_from_uri
from aria2tui.lib.aria2c_wrapper import removeCompletedFull, sendReqFull
def rows():
    items, header = returnAll()
    status, name = header.index("Status"), header.index("Name")
    return sorted(f"{r[status]} {r[name]}" for r in items)
def step(name, f):
    value = f()
    print(json.dumps({"step": name, "value": str(value), "rows": rows(), "slow": "; ".join(slow) or None}), flush=True)
    slow.clear()
def status(gid): return sendReq(tellStatus(gid))["result"]["status"]
def wait(gid, wanted):
    end = time.time() + 20
    while time.time() < end and status(gid) not in wanted: time.sleep(0.1)
    return status(gid)
gid = {}
def add(*names):
    for name in names:
        ok, message = add_download_from_uri(base + "/" + name)
        gid[name] = message.split("gid=")[1].rstrip(".")
def retry():
    new = retryDownload(gid["missing.bin"])
    return ("new GID, " if new and new != gid["missing.bin"] else "same GID, ") + wait(new, ["error"])
step("empty", lambda: testConnection() and testAriaConnection())
# Its global options form: each new download capped, so the big ones run through the script.
step("limit", lambda: sendReq(changeGlobalOption({"max-download-limit": "500K"}))["result"])
step("add", lambda: add("small.bin", "missing.bin"))
step("wait", lambda: [wait(gid["small.bin"], ["complete"]), wait(gid["missing.bin"], ["error"])])
step("retry", retry)
# Its "Show Download Information": a call that fails shows as NONE (marked !).
step("info", lambda: " ".join(r["function"] + ("!" if r.get("response") == "NONE" else "") for r in getAllInfo(gid["small.bin"])))
step("add big", lambda: [add("big.bin", "other.bin"), wait(gid["big.bin"], ["active"]), wait(gid["other.bin"], ["active"])])
step("pause", lambda: [sendReq(pause(gid["big.bin"]))["result"] == gid["big.bin"], wait(gid["big.bin"], ["paused"])])
step("resume", lambda: [sendReq(unpause(gid["big.bin"]))["result"] == gid["big.bin"], wait(gid["big.bin"], ["active"])])
# A paused download removed leaves no result; a running one stops as removed.
step("remove paused", lambda: [sendReq(pause(gid["other.bin"]))["result"] == gid["other.bin"], wait(gid["other.bin"], ["paused"]),
                               remove_downloads([gid["other.bin"]])])
step("remove", lambda: [remove_downloads([gid["big.bin"]]), wait(gid["big.bin"], ["removed"])])
step("remove result", lambda: remove_downloads([gid["big.bin"]]))
step("clear", lambda: sendReqFull(removeCompletedFull(token=config_manager.get_token()), url=config_manager.get_url(),
                                  port=int(config_manager.get_port()))["result"])
"""#
}
