import Foundation
import XCTest
@testable import TDLCore

final class SchedulerTests: XCTestCase {
    func testWaitingTasksStartInAddTimeOrderAsSlotsFreeUp() {
        let f = Fixture(limit: 2)
        let urls = f.add(["a", "b", "c", "d", "e"])
        XCTAssertEqual(f.engine.started, [urls[0], urls[1]])
        f.finish(urls[1])
        XCTAssertEqual(f.engine.started.last, urls[2])
        f.engine.fail(urls[0], .timeout)
        XCTAssertEqual(f.engine.started.last, urls[3])
        f.manager.pauseTasks([urls[2]])
        XCTAssertEqual(f.engine.started, [urls[0], urls[1], urls[2], urls[3], urls[4]])
    }

    func testAFileBeingMadeDurableLeavesItsSlotToTheNext() {
        let f = Fixture(limit: 2)
        let urls = f.add(["a", "b", "c", "d"])
        XCTAssertEqual(f.engine.started, [urls[0], urls[1]])
        f.engine.onEvent?(.finishing(url: urls[0], started: true))
        XCTAssertEqual(f.engine.started.last, urls[2], "c starts while a is made durable")
        XCTAssertEqual(f.manager.state(of: urls[0]), .downloading, "a is not done before it is durable")
        // a's check failed: it downloads again and takes a slot back, so d waits for two ends.
        f.engine.onEvent?(.finishing(url: urls[0], started: false))
        f.finish(urls[1])
        XCTAssertEqual(f.manager.state(of: urls[3]), .waiting)
        f.finish(urls[0])
        XCTAssertEqual(f.engine.started.last, urls[3])
    }

    func testAFileCompleteAtItsStartDoesNotOverfillTheSlots() {
        let f = Fixture(limit: 2)
        let urls = ["a", "b", "c", "d"].map(Fixture.url)
        f.engine.completeOnStart = [urls[0]]
        f.manager.add(urls)
        XCTAssertEqual(f.engine.started, [urls[0], urls[1], urls[2]], "a leaves its slot at once; b and c take the two")
        XCTAssertEqual(f.manager.state(of: urls[3]), .waiting)
    }

    func testFinishingFilesFreeSlotsOnlyUpToABound() {
        let f = Fixture(limit: 1)
        let bound = Scheduler.finishingOutsideSlots
        f.add((0 ..< bound + 5).map { "f\($0)" })
        for _ in 0 ... bound {
            f.engine.onEvent?(.finishing(url: f.engine.started.last!, started: true))
        }
        XCTAssertEqual(f.engine.started.count, bound + 1, "a disk slower than the network holds the next downloads back")
    }

    func testOneBatchStartsInTheOrderGiven() {
        let f = Fixture(limit: 2)
        let urls = ["https://example.com/z", "https://example.com/a", "https://example.com/m"]
        f.manager.add(urls)
        XCTAssertEqual(f.engine.started, [urls[0], urls[1]])
        XCTAssertEqual(f.manager.state(of: urls[2]), .waiting)
    }

    /// The limit's excess goes back to waiting, not to Paused: a freed slot starts the oldest
    /// waiting task, which it is ahead of any task added after it.
    func testLoweringTheLimitSendsTheNewestBackToTheQueueInItsOrder() {
        let f = Fixture(limit: 4)
        let urls = f.add(["a", "b", "c", "d", "e", "f"])
        f.manager.pauseTasks([urls[0]])  // a slot frees: e starts; a is the user's pause
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.paused, .downloading, .downloading, .downloading, .downloading, .waiting])

        f.manager.maxDownloadCount = 2
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.paused, .downloading, .downloading, .waiting, .waiting, .waiting])
        XCTAssertEqual(Set(f.engine.stopped.suffix(2)), [urls[3], urls[4]])

        f.manager.stopTasks([urls[1]])
        XCTAssertEqual(f.manager.state(of: urls[3]), .downloading, "the oldest waiting task takes the freed slot, not a newer one")
        XCTAssertEqual(f.manager.state(of: urls[5]), .waiting)

        f.manager.maxDownloadCount = 4
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.paused, .stopped, .downloading, .downloading, .downloading, .downloading],
                       "raising it starts the queue in order; the user's pause and stop stay")
    }

    func testZeroOrNegativeMeansNoLimit() {
        let f = Fixture(limit: 0)
        let urls = f.add((0 ..< 10).map { "f\($0)" })
        XCTAssertTrue(urls.allSatisfy { f.manager.state(of: $0) == .downloading })
        f.manager.maxDownloadCount = 3
        XCTAssertEqual(urls.filter { f.manager.state(of: $0) == .downloading }, Array(urls.prefix(3)))
        f.manager.maxDownloadCount = -1
        XCTAssertTrue(urls.allSatisfy { f.manager.state(of: $0) == .downloading }, "the paused excess comes back")
    }

    func testTasksTheLimitSentBackAndThenTheUserPausedStayPaused() {
        let f = Fixture(limit: 3)
        let urls = f.add(["a", "b", "c"])
        f.manager.maxDownloadCount = 1
        f.manager.pauseTasks([urls[2]])  // waiting after the limit: the user's pause holds it
        f.manager.stopTasks([urls[1]])
        f.manager.maxDownloadCount = 3
        XCTAssertEqual(f.manager.state(of: urls[1]), .stopped)
        XCTAssertEqual(f.manager.state(of: urls[2]), .paused)
    }

    func testWithoutAnEngineTasksWaitForOneThatDownloads() {
        let f = Fixture(engine: false)
        let a = f.add(["a"])[0]
        XCTAssertEqual(f.manager.state(of: a), .waiting)
    }

    func testDownloadNewFileImmediatelyOff() {
        let f = Fixture()
        f.manager.downloadNewFileImmediately = false
        let a = f.add(["a"])[0]
        XCTAssertEqual(f.manager.state(of: a), .stopped)
        XCTAssertTrue(f.engine.started.isEmpty)
        XCTAssertEqual(f.manager.resumeTasks([a]), [a])
    }

    func testAllDownloadsOverIsSignalledOnce() {
        let f = Fixture(limit: 1)
        let urls = f.add(["a", "b"])
        f.finish(urls[0])
        XCTAssertFalse(f.events.contains(.allDownloadsOver))
        f.engine.fail(urls[1], .diskFull)
        XCTAssertEqual(f.events.filter { $0 == .allDownloadsOver }.count, 1)
        XCTAssertTrue(f.events.contains(.taskFailed(url: urls[1], reason: .diskFull)))
        XCTAssertTrue(f.events.contains(.taskSucceeded(url: urls[0], path: f.manager.task(urls[0])!.filePath)))
    }

    func testPausingEverythingAlsoEndsTheDownloads() {
        let f = Fixture()
        f.add(["a", "b"])
        f.manager.pauseAllTasks()
        XCTAssertEqual(f.events.filter { $0 == .allDownloadsOver }.count, 1)
    }

    func testTheWaitingQueueGivesTheOldestAndSkipsWhatNoLongerWaits() {
        let base = Date(timeIntervalSinceReferenceDate: 0)
        var queue = WaitingQueue()
        var entries: [WaitingQueue.Entry] = []
        for i in 0 ..< 500 {
            // Scrambled add times, and pairs with equal times that the URL must order.
            let entry = WaitingQueue.Entry(addTime: base.addingTimeInterval(Double((i * 7919) % 250)), url: "u\(i)")
            entries.append(entry)
            queue.insert(entry)
        }
        var waiting = Set(entries.map(\.url))
        let sorted = entries.sorted().map(\.url)
        // The oldest no longer waits, the next is in the trash: both are passed over.
        waiting.remove(sorted[0])
        let trashed = sorted[1]
        let first = queue.takeOldest(3, isWaiting: { waiting.contains($0) }, canStart: { $0 != trashed })
        XCTAssertEqual(first, Array(sorted[2 ..< 5]))
        first.forEach { waiting.remove($0) }
        // A task that waits again is queued again; its old entry does not start it twice.
        queue.insert(entries.first { $0.url == sorted[2] }!)
        waiting.insert(sorted[2])
        XCTAssertEqual(queue.takeOldest(2, isWaiting: { waiting.contains($0) }, canStart: { $0 != trashed }),
                       [sorted[2], sorted[5]])
        // The trashed one was kept: restored, it is the oldest that can start.
        XCTAssertEqual(queue.takeOldest(1, isWaiting: { waiting.contains($0) }, canStart: { _ in true }), [trashed])
        XCTAssertEqual(queue.takeOldest(0, isWaiting: { _ in true }, canStart: { _ in true }), [])
        XCTAssertEqual(queue.takeOldest(1000, isWaiting: { waiting.contains($0) }, canStart: { _ in true }).count, 494)
    }

    func testAMovedTaskStartsInItsNewPlace() {
        let f = Fixture(limit: 1)
        let urls = f.add(["a", "b", "c", "d", "e"])
        // d ahead of b, e ahead of everything that waits; a paused task can be moved too.
        f.manager.moveInStartOrder(urls[3], after: nil, before: urls[1])
        f.manager.moveInStartOrder(urls[4], after: nil, before: urls[3])
        f.manager.pauseTasks([urls[2]])
        f.manager.moveInStartOrder(urls[2], after: urls[4], before: urls[3])
        f.manager.resumeTasks([urls[2]], queueIfFull: true)
        for url in f.engine.started { f.finish(url) }
        while let next = f.engine.started.last, f.manager.state(of: next) == .downloading { f.finish(next) }
        XCTAssertEqual(f.engine.started, [urls[0], urls[4], urls[2], urls[3], urls[1]])
    }

    func testMovesIntoAGapWithNoRoomLeftKeepTheOrder() {
        let f = Fixture(limit: 1)
        let first = f.add(["first"])[0]
        // One batch: the same add time for all, the URL orders them.
        let urls = (0 ..< 6).map { Fixture.url("t\($0)") }
        f.manager.add(urls)
        f.manager.moveInStartOrder(urls[5], after: urls[0], before: urls[1])
        for _ in 0 ..< 60 {  // halving the gap between t0 and t5 runs out of room on the way
            f.manager.moveInStartOrder(urls[4], after: urls[0], before: urls[5])
            f.manager.moveInStartOrder(urls[5], after: urls[0], before: urls[4])
        }
        XCTAssertEqual(f.engine.started, [first])
        while let next = f.engine.started.last, f.manager.state(of: next) == .downloading { f.finish(next) }
        XCTAssertEqual(f.engine.started, [first, urls[0], urls[5], urls[4], urls[1], urls[2], urls[3]])
    }

    func testTasksWaitingWhenTheSessionWasSavedStartAfterALoad() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.maxDownloadCount = 2
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        let tasks = (0 ..< 4).map { i in
            DownloadTask(url: "https://example.com/\(i)", fileName: "\(i)", directory: folder, addTime: t0 + Double(3 - i), state: .waiting)
        }
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: folder, engine: engine, store: FakeStore(SessionSnapshot(tasks: tasks, settings: settings)))
        try manager.load()
        XCTAssertEqual(engine.started, ["https://example.com/3", "https://example.com/2"], "the two oldest first")
    }

    func testManagersHaveTheirOwnLimits() {
        let registry = ManagerRegistry(defaultDirectory: NSTemporaryDirectory(), makeEngine: { _ in FakeEngine() })
        let work = registry.manager(identifier: "work")
        let home = registry.manager(identifier: "home", manualMode: true)
        XCTAssertTrue(registry.manager(identifier: "work") === work)
        XCTAssertEqual(registry.identifiers, ["work", "home"])
        XCTAssertEqual(home.arrangement, .manual)
        XCTAssertEqual(work.arrangement, .sorted(.addTime, .ascending))
        work.maxDownloadCount = 1
        home.maxDownloadCount = 2
        work.add(["https://example.com/1", "https://example.com/2"])
        home.add(["https://example.com/1", "https://example.com/2"])
        XCTAssertEqual(work.counts[.downloading], 1)
        XCTAssertEqual(home.counts[.downloading], 2)
        XCTAssertNil(registry.existingManager(identifier: "other"))
        XCTAssertTrue(registry.removeManager(identifier: "work"))
        XCTAssertFalse(registry.removeManager(identifier: "work"))
        XCTAssertFalse(registry.manager(identifier: "work") === work)
    }
}

final class RunOnlyTests: XCTestCase {
    func testOnlyTheGivenDownloadsStartAndTheBacklogKeepsItsOrder() {
        let f = Fixture(limit: 1, engine: true)
        f.manager.runOnly([])  // as `tdl get` opens a session: nothing of the backlog starts
        let backlog = f.add(["a", "b", "c"])
        XCTAssertEqual(f.engine.started, [])
        let wanted = f.add(["d"])[0]
        f.manager.runOnly([wanted])
        XCTAssertEqual(f.engine.started, [wanted])
        f.finish(wanted)
        XCTAssertEqual(f.engine.started, [wanted], "the backlog waits")
        XCTAssertEqual(backlog.map { f.manager.state(of: $0) }, [.waiting, .waiting, .waiting])
        f.manager.runOnly(nil)
        XCTAssertEqual(f.engine.started, [wanted, backlog[0]], "then in its own order")
    }
}
