import Foundation
import TDLTestSupport
import XCTest

/// `aria2p top` (curses, in tmux) watches `tdl serve` for 40 s while `scripts/soak-rpc.py`
/// adds, pauses, resumes, removes, retries and purges downloads that finish from nginx. The
/// script checks the end: top still running, no traceback, no "RemoteDisconnected", no
/// request of top's that timed out, and every call of its own answered. The same script runs
/// for an hour outside the suite (README, "Using aria2 front ends").
final class Aria2TopSoakTests: XCTestCase {
    override class func setUp() { Aria2pTests.setUp() }

    func testAria2pTopOutlivesASoakOfFrontEndCalls() throws {
        let python = Aria2pTests.venv + "/bin/python"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: python), "aria2p could not be installed (run make test-deps)")
        try XCTSkipUnless(Processes.which("tmux") != nil, "tmux is not installed (make test-deps)")
        var probe = try Processes.run(python, ["-c", "import asciimatics"], timeout: 30)
        if probe.status != 0 {  // a venv made before top was needed
            _ = try? Processes.run(Processes.packageRoot + "/scripts/install-deps.sh", ["--aria2p"], timeout: 300)
            probe = try Processes.run(python, ["-c", "import asciimatics"], timeout: 30)
        }
        XCTAssertEqual(probe.status, 0, "aria2p top needs aria2p[tui] (scripts/install-deps.sh --aria2p): \(probe.stderr)")
        let site = TemporaryDirectory("tdl-top-site"), home = TemporaryDirectory(), downloads = TemporaryDirectory()
        _ = try TestFiles.make(site.file("small.bin"), size: 400_000, seed: 31)
        _ = try TestFiles.make(site.file("big.bin"), size: 3_000_000, seed: 32)
        let nginx = try LoopbackNginx(root: site.path, rateLimit: "512k")
        let port = RefusingPort.make()
        let (serve, _) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port),
                                                                   "--rpc-secret", "sesame"], environment: ["TDL_HOME": home.path])
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        let urls = ["small.bin", "big.bin", "missing.bin"].map(nginx.url)
        let result = try Processes.run(python, [Processes.packageRoot + "/scripts/soak-rpc.py", "--port", String(port), "--secret", "sesame",
                                                "--seconds", "40", "--pause-max", "5", "--top"] + urls, timeout: 150)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
        XCTAssertEqual(report["failures"] as? Int, 0, result.stdout)
        XCTAssertGreaterThan(report["calls"] as? Int ?? 0, 200, result.stdout)
        let top = try XCTUnwrap(report["top"] as? [String: Any], result.stdout)
        XCTAssertEqual(top["running"] as? Bool, true, "aria2p top ended: \(top)")
        XCTAssertEqual((top["problems"] as? [String])?.isEmpty, true, "aria2p top logged: \(top)")
        XCTAssertGreaterThan(top["screens_with_downloads"] as? Int ?? 0, 20, "aria2p top showed the downloads: \(top)")
        XCTAssertTrue(serve.isRunning, "tdl serve is still running")
    }
}
