import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// What is left of a download once it leaves aria2's queues, as Debian's aria2c 1.37 answers
/// (front ends such as aria2tui show these answers as they come).
final class Aria2StoppedDownloadTests: XCTestCase {
    /// aria2 stops a running download as a removed one, told by onDownloadStop; one taken out
    /// of the waiting queue (waiting, or paused) just goes: no result, nothing told.
    func testRemovingAQueuedDownloadLeavesNoResult() {
        let f = RPCFixture(limit: 1)
        let running = f.add("http://127.0.0.1:1/running.bin")
        let waiting = f.add("http://127.0.0.1:1/waiting.bin")
        let held = f.add("http://127.0.0.1:1/held.bin", ["pause": "true"])
        let paused = f.add("http://127.0.0.1:1/paused.bin")
        _ = f.result("aria2.pause", [.string(paused)])
        XCTAssertEqual([running, waiting, held, paused].map(f.status), ["active", "waiting", "paused", "paused"])
        for gid in [waiting, held, paused] {
            XCTAssertEqual(f.result("aria2.remove", [.string(gid)]).string, gid)
            XCTAssertEqual(f.errorMessage("aria2.tellStatus", [.string(gid)]), "GID \(gid) is not found")
        }
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10, ["gid"]]), [])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStoppedTotal"], "0")
        XCTAssertFalse(f.notifications.contains { $0.method == "aria2.onDownloadStop" }, "\(f.notifications)")

        XCTAssertEqual(f.result("aria2.forceRemove", [.string(running)]).string, running)
        XCTAssertEqual(f.status(running), "removed")
        XCTAssertEqual(f.notifications.last.map { [$0.method, $0.gid] }, ["aria2.onDownloadStop", running])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStoppedTotal"], "1")
    }

    /// A stopped download keeps its files (getFiles) but no URI or peer data.
    func testAStoppedDownloadHasNoURIOrPeerData() {
        let f = RPCFixture(limit: 2)
        let done = f.add("http://127.0.0.1:1/done.bin")
        let failed = f.add("http://127.0.0.1:1/failed.bin")
        let path = (f.folder as NSString).appendingPathComponent("done.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 10)))
        f.engine.finish("http://127.0.0.1:1/done.bin", path: path, size: 10)
        f.engine.fail("http://127.0.0.1:1/failed.bin", .httpStatus(404))
        for gid in [done, failed] {
            XCTAssertEqual(f.errorMessage("aria2.getUris", [.string(gid)]), "No URI data is available for GID#\(gid)")
            XCTAssertEqual(f.errorMessage("aria2.getPeers", [.string(gid)]), "No peer data is available for GID#\(gid)")
            XCTAssertEqual(f.result("aria2.getFiles", [.string(gid)]).array?.count, 1)
        }
        // An earlier attempt of a URL added again is a stopped download too.
        let again = f.add("http://127.0.0.1:1/failed.bin")
        XCTAssertNotEqual(again, failed)
        XCTAssertEqual(f.errorMessage("aria2.getUris", [.string(failed)]), "No URI data is available for GID#\(failed)")
        XCTAssertEqual(f.errorMessage("aria2.getPeers", [.string(failed)]), "No peer data is available for GID#\(failed)")
        // One in a queue has both.
        XCTAssertEqual(f.result("aria2.getUris", [.string(again)]).array?.first?["uri"], "http://127.0.0.1:1/failed.bin")
        XCTAssertEqual(f.result("aria2.getPeers", [.string(again)]), [])
    }

    /// removeDownloadResult and purgeDownloadResult drop results: aria2 tells nothing of it.
    func testDroppingAResultTellsNothing() {
        let f = RPCFixture(limit: 2)
        let done = f.add("http://127.0.0.1:1/kept.bin")
        _ = f.add("http://127.0.0.1:1/lost.bin")
        let path = (f.folder as NSString).appendingPathComponent("kept.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 10)))
        f.engine.finish("http://127.0.0.1:1/kept.bin", path: path, size: 10)
        f.engine.fail("http://127.0.0.1:1/lost.bin", .httpStatus(404))
        let told = f.notifications.count
        XCTAssertEqual(f.result("aria2.removeDownloadResult", [.string(done)]), "OK")
        XCTAssertEqual(f.result("aria2.purgeDownloadResult"), "OK")
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10, ["gid"]]), [])
        XCTAssertEqual(f.notifications.dropFirst(told).map(\.method), [])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStoppedTotal"], "2")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "a finished file stays")
    }
}
