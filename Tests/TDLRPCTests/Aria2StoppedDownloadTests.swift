import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// What is left of a download once it leaves aria2's queues, as Debian's aria2c 1.37 answers
/// (front ends such as aria2tui show these answers as they come).
final class Aria2StoppedDownloadTests: XCTestCase {
    /// aria2 stops a running download as a removed one, told by onDownloadStop; one taken out
    /// of the waiting queue (waiting, or paused) just goes: no result, nothing told. It keeps
    /// the partial file (aria2 too), so adding it again goes on from there: tdl's trash holds
    /// it, and over RPC it is nowhere, on the loop and on the board the server's threads read.
    func testRemovingAQueuedDownloadLeavesNoResultAndKeepsItsPartFile() throws {
        let f = RPCFixture(limit: 3)
        let urls = ["http://127.0.0.1:1/running.bin", "http://127.0.0.1:1/waiting.bin", "http://127.0.0.1:1/paused.bin"]
        let (running, waiting, paused) = (f.add(urls[0]), f.add(urls[1]), f.add(urls[2]))
        let held = f.add("http://127.0.0.1:1/held.bin", ["pause": "true"])
        var parts: [String: String] = [:]
        for url in urls {
            f.engine.resolve(url, name: (url as NSString).lastPathComponent, size: 1000)
            parts[url] = try XCTUnwrap(f.manager.task(url)?.ownPartPath)
            XCTAssertTrue(FileManager.default.createFile(atPath: parts[url]!, contents: Data(repeating: 7, count: 300)))
        }
        _ = f.result("aria2.pause", [.string(waiting)])
        _ = f.result("aria2.pause", [.string(paused)])
        f.manager.maxDownloadCount = 1
        _ = f.result("aria2.unpause", [.string(waiting)])
        XCTAssertEqual([running, waiting, held, paused].map(f.status), ["active", "waiting", "paused", "paused"])
        let board = ReadOnlyCalls(board: f.rpc.statusBoard)
        for gid in [waiting, held, paused] {
            XCTAssertEqual(f.result("aria2.remove", [.string(gid)]).string, gid)
            for method in ["aria2.tellStatus", "aria2.getFiles", "aria2.getUris", "aria2.getOption", "aria2.removeDownloadResult"] {
                XCTAssertEqual(f.errorMessage(method, [.string(gid)]), "GID \(gid) is not found", method)
                let call: JSON = ["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": [.string(gid)]]
                XCTAssertNil(board.answer(request: call), "the board has no \(method) for \(gid)")
            }
        }
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10, ["gid"]]), [])
        XCTAssertEqual(f.result("aria2.purgeDownloadResult"), "OK")
        for stat in [f.result("aria2.getGlobalStat"), board.answer(request: ["jsonrpc": "2.0", "id": 1, "method": "aria2.getGlobalStat"])?["result"]] {
            XCTAssertEqual(stat?["numStopped"], "0")
            XCTAssertEqual(stat?["numStoppedTotal"], "0")
        }
        XCTAssertFalse(f.notifications.contains { $0.method == "aria2.onDownloadStop" }, "\(f.notifications)")
        // tdl's trash keeps them, part files and all, through purgeDownloadResult.
        for url in urls.dropFirst() {
            XCTAssertNotNil(f.manager.task(url)?.deletedAt, url)
            XCTAssertEqual(FileManager.default.contents(atPath: parts[url]!), Data(repeating: 7, count: 300), url)
        }

        // Added again: a new GID, going on from its part file; the old GID stays unknown.
        let again = f.add(urls[2])
        XCTAssertNotEqual(again, paused)
        XCTAssertEqual(f.status(again), "waiting")
        XCTAssertNil(f.manager.task(urls[2])?.metaInfo[Aria2Terms.droppedKey], "the mark goes with the trash")
        XCTAssertEqual(f.manager.task(urls[2])?.ownPartPath, parts[urls[2]])
        XCTAssertEqual(FileManager.default.contents(atPath: parts[urls[2]]!), Data(repeating: 7, count: 300))
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", [.string(paused)]), "GID \(paused) is not found")
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10, ["gid"]]), [])
        // Restored on tdl's screen: as it was before the remove, a download aria2 would have again.
        XCTAssertEqual(f.manager.restoreToDeleteTasks([urls[1]]).count, 1)
        XCTAssertNil(f.manager.task(urls[1])?.metaInfo[Aria2Terms.droppedKey])
        XCTAssertEqual(f.status(waiting), "waiting")

        XCTAssertEqual(f.result("aria2.forceRemove", [.string(running)]).string, running)
        XCTAssertEqual(f.status(running), "removed")
        XCTAssertEqual(f.notifications.filter { $0.method == "aria2.onDownloadStop" }.map(\.gid), [running])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStoppedTotal"], "1")
        XCTAssertEqual(board.answer(request: ["jsonrpc": "2.0", "id": 1, "method": "aria2.getGlobalStat"])?["result"]?["numStopped"], "1")
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
