import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// `-j`, `-x` and `--limit-rate` are one run's: never written into the session, so a run
/// killed with `kill -9` leaves the session's own settings.
final class RunLimitsTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-run-limits-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)

    override class func setUp() {
        do {
            try TestFiles.make(site.file("slow.bin"), size: 3_000_000, seed: 81)
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            XCTFail("\(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    /// The session's settings rows, as `key=value` lines.
    func savedSettings(_ home: TemporaryDirectory) throws -> [String: String] {
        let script = """
            import sqlite3, sys
            for key, value in sqlite3.connect(sys.argv[1]).execute("SELECT key, value FROM setting"):
                print(f"{key}={value}")
            """
        let read = try Processes.run("/usr/bin/python3", ["-c", script, home.file("session.sqlite")])
        XCTAssertEqual(read.status, 0, read.stderr)
        var values: [String: String] = [:]
        for line in read.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    func testAKilledLimitedGetLeavesTheSessionsOwnLimits() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        // The session's own values first, set as a user sets them for good.
        XCTAssertEqual(try Processes.tdl(["add", "http://127.0.0.1:9/other.bin"], home: home.path).status, 0)
        let before = try savedSettings(home)
        Processes.runAndKill(Processes.tdlBinary, ["get", "-q", "-j", "1", "-x", "2", "--limit-rate", "50K", "-d", downloads.path,
                                                   Self.nginx.url("slow.bin")],
                             environment: ["TDL_HOME": home.path], after: 1.5)
        let after = try savedSettings(home)
        XCTAssertEqual(after["endedCleanly"], "0", "the run was cut off: \(after)")
        // A setting never written is the default: 3 at once, 8 connections, no rate cap.
        let defaults = ["maxDownloadCount": "3", "connectionsPerDownload": "8"]
        for key in ["maxDownloadCount", "connectionsPerDownload", "globalRateLimit"] {
            XCTAssertEqual(after[key] ?? defaults[key], before[key] ?? defaults[key], "\(key) is the session's, not the run's: \(after)")
        }
        // The next run is not capped: 3 MB at 50K would take a minute.
        let started = Date()
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, Self.nginx.url("slow.bin")], home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}
