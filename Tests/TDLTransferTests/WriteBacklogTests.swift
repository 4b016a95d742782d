import Dispatch
import Foundation
import TDLCore
import TDLTestSupport
@testable import TDLTransfer
import XCTest

/// Body bytes are written by the worker, never by the loop: while the worker is held (as by a
/// long fsync of a finished file) the loop writes nothing, the transfer pauses once the queue
/// is full, the loop keeps turning, and no checkpoint counts bytes not yet written and synced.
final class WriteBacklogTests: XCTestCase {
    func testWhileTheWorkerIsHeldTheLoopWritesNothingAndTheTransferWaitsForIt() throws {
        let site = TemporaryDirectory("tdl-backlog-site")
        let size = 24_000_000
        try TestFiles.make(site.file("big.bin"), size: size, seed: 24)
        let expected = try Processes.sha256(ofFile: site.file("big.bin"))
        let nginx = try LoopbackNginx(root: site.path)
        let downloads = TemporaryDirectory("tdl-backlog")
        let engine = CurlEngine(settings: EngineHarness.fastSettings)
        engine.writeBacklogLimit = 4 << 20
        let manager = DownloadManager(identifier: "test", defaultDirectory: downloads.path, engine: engine)
        manager.setConnectionsPerDownload(1)
        manager.maxDownloadCount = 0
        let url = nginx.url("big.bin")
        let partPath = downloads.file("big.bin.part")

        let gate = DispatchSemaphore(value: 0)
        engine.worker.run { gate.wait() }
        manager.add([url])
        var slowestTurn = 0.0
        let heldUntil = Date().addingTimeInterval(1.5)
        while Date() < heldUntil {
            let start = Date()
            _ = manager.runOnce(timeoutMs: 20)
            slowestTurn = max(slowestTurn, Date().timeIntervalSince(start))
        }
        let taken = engine.liveProgress()[url] ?? 0
        XCTAssertEqual(Self.fileSize(partPath), 0, "body bytes were written while the worker was held: by the loop")
        XCTAssertGreaterThanOrEqual(taken, Int64(engine.writeBacklogLimit), "the transfer stopped before the queue was full")
        XCTAssertLessThanOrEqual(taken, Int64(engine.writeQueueCap), "the transfer did not pause: memory is not bounded")
        XCTAssertEqual(manager.task(url)?.received, 0, "a checkpoint counted bytes not yet written")
        XCTAssertLessThan(slowestTurn, 0.25, "the loop stopped turning while the worker was held")

        gate.signal()
        let deadline = Date().addingTimeInterval(60)
        while manager.isBusy && Date() < deadline {
            _ = manager.runOnce(timeoutMs: 20)
            // Bytes are written, then synced, then recorded: a recorded count never passes the file.
            // (The finish renames the part file on the worker: then there is nothing to compare.)
            if let received = manager.task(url)?.received, let written = Self.fileSize(partPath) {
                XCTAssertLessThanOrEqual(received, written, "a checkpoint counted bytes not yet written")
            }
        }
        XCTAssertEqual(manager.task(url)?.state, .finished)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("big.bin")), expected)
        XCTAssertEqual(engine.queuedWriteBytes.value, 0)
    }

    private static func fileSize(_ path: String) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
    }
}
