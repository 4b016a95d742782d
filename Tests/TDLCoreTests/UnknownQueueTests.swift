import Foundation
import XCTest
@testable import TDLCore

/// A download added to a queue no one defined is refused where it is added: a typo'd night
/// queue would otherwise run at once, in the default queue's hours.
final class UnknownQueueTests: XCTestCase {
    func testAnUnknownQueueIsRefusedAndNamesTheKnownOnes() {
        let f = Fixture()
        f.manager.setQueue(QueueDefinition(name: "night", maxActive: 1))
        let url = Fixture.url("typo.bin")
        let result = f.manager.add([url], options: DownloadOptions(queue: "nigth"))
        XCTAssertEqual(result.added, [])
        XCTAssertEqual(result.rejected.first?.reason, "no queue named nigth (queues: default, night)")
        XCTAssertNil(f.manager.task(url))
        XCTAssertEqual(f.engine.started, [], "nothing starts")
    }

    func testDefaultAndDefinedQueuesAreKnownAndARunsQueuesToo() {
        let f = Fixture()
        XCTAssertEqual(f.manager.add([Fixture.url("a")], options: DownloadOptions(queue: "default")).added.count, 1)
        f.manager.setQueue(QueueDefinition(name: "night", maxActive: 1))
        XCTAssertEqual(f.manager.add([Fixture.url("b")], options: DownloadOptions(queue: "night")).added.count, 1)
        f.manager.useRunQueues(QueueList([QueueDefinition(name: "fromconfig", maxActive: 1)]), rateSchedule: nil)
        XCTAssertEqual(f.manager.add([Fixture.url("c")], options: DownloadOptions(queue: "fromconfig")).added.count, 1)
    }

    /// Asked for again with a queue of a typo: refused too, and the download keeps its queue.
    func testAnUnknownQueueOnAnExistingDownloadIsRefused() {
        let f = Fixture()
        f.manager.setQueue(QueueDefinition(name: "night", maxActive: 1))
        let url = Fixture.url("kept.bin")
        f.manager.add([url], options: DownloadOptions(queue: "night"))
        let result = f.manager.add([url], options: DownloadOptions(queue: "nigth"))
        XCTAssertEqual(result.rejected.first?.reason, "no queue named nigth (queues: default, night)")
        XCTAssertEqual(f.manager.task(url)?.options.queue, "night")
    }
}

/// A URL asked for again takes its new queue as the screen's `Q` gives one (a list sorted by
/// queue moves its row), and every option the ask carries.
final class AskAgainOptionsTests: XCTestCase {
    func testANewQueueMovesTheRowToItsSection() {
        let f = Fixture()
        f.manager.setQueue(QueueDefinition(name: "night", maxActive: 1))
        f.manager.sortListBy(type: .queue)
        let url = Fixture.url("moves.bin")
        f.manager.add([url])
        f.events.removeAll()
        f.manager.add([url], options: DownloadOptions(queue: "night"))
        XCTAssertEqual(f.manager.task(url)?.options.queue, "night")
        XCTAssertEqual(f.manager.indexPath(of: url).map { f.manager.titleForHeaderInSection($0.section) }, "night")
        XCTAssertTrue(f.events.contains { if case .listChanged = $0 { return true } else { return false } })
    }

    func testChecksumRetriesAndExpectedSizeAreTaken() {
        let f = Fixture()
        let url = Fixture.url("fields.bin")
        f.manager.add([url])
        f.manager.add([url], options: DownloadOptions(checksumRetries: 0, expectedSize: 1234))
        XCTAssertEqual(f.manager.task(url)?.options.checksumRetries, 0)
        XCTAssertEqual(f.manager.task(url)?.options.expectedSize, 1234)
    }

    /// A finished file whose bytes do not match a checksum given with the ask stays, finished;
    /// the ask says so and the checksum is not taken.
    func testAWrongChecksumNeverDiscardsAFinishedFile() {
        let f = Fixture()
        f.manager.fileDigest = { _, _ in "aa" }
        let url = Fixture.url("done.bin")
        f.manager.add([url])
        f.finish(url)
        let path = f.manager.task(url)!.filePath
        let result = f.manager.add([url], options: DownloadOptions(checksum: Checksum(algorithm: .sha256, hex: "bb")))
        XCTAssertTrue(result.notApplied.first?.reason.contains("checksum error") == true, "\(result.notApplied)")
        XCTAssertEqual(result.mismatched, [url])
        XCTAssertTrue(f.exists(path), "the finished file stays")
        XCTAssertEqual(f.manager.task(url)?.state, .finished)
        XCTAssertNil(f.manager.task(url)?.options.checksum)
        XCTAssertEqual(f.engine.started, [url], "not downloaded again")
        // One it matches is taken.
        let right = f.manager.add([url], options: DownloadOptions(checksum: Checksum(algorithm: .sha256, hex: "aa")))
        XCTAssertEqual(right.notApplied, [])
        XCTAssertEqual(f.manager.task(url)?.options.checksum?.hex, "aa")
        XCTAssertEqual(f.manager.task(url)?.state, .finished)
    }
}
