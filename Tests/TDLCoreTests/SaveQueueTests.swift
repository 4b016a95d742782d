import Foundation
import XCTest
@testable import TDLCore

final class SaveQueueTests: XCTestCase {
    let start = Date(timeIntervalSinceReferenceDate: 1000)
    let list = ListModel(arrangement: .sorted(.addTime, .ascending))

    func task(_ name: String) -> DownloadTask { DownloadTask(url: "https://h/\(name)", fileName: name, directory: "/tmp") }

    func testAChangedTaskGoesOutWholeAndItsCheckpointRidesWithIt() {
        var queue = SaveQueue()
        let a = task("a"), b = task("b")
        queue.taskChanged(a.url)
        queue.progressed(a.url, [Segment(start: 0, end: 10, done: 5)])
        queue.progressed(b.url, [Segment(start: 0, end: 10, done: 7)])
        let changes = queue.take(tasks: [a.url: a, b.url: b], list: list, at: start)
        XCTAssertEqual(changes?.upserted.map(\.url), [a.url])
        XCTAssertEqual(changes.map { Array($0.progress.keys) }, [b.url], "only the unchanged task's segments go alone")
        XCTAssertNil(queue.take(tasks: [a.url: a, b.url: b], list: list, at: start), "nothing is written twice")
    }

    func testAFailedSaveKeepsItsChangesForTheNextOne() {
        var queue = SaveQueue()
        let a = task("a")
        queue.taskChanged(a.url)
        let failed = queue.take(tasks: [a.url: a], list: list, at: start)!
        queue.giveBack(failed)
        XCTAssertEqual(queue.take(tasks: [a.url: a], list: list, at: start)?.upserted.map(\.url), [a.url])
    }

    func testChangesAreDueWithinATenthOfASecondAndQuietOnesEverySecond() {
        var queue = SaveQueue()
        _ = queue.take(tasks: [:], list: list, at: start)
        XCTAssertFalse(queue.isDue(at: start.addingTimeInterval(0.5)), "nothing waits")
        XCTAssertTrue(queue.isDue(at: start.addingTimeInterval(1)))
        queue.progressed("https://h/a", [])
        XCTAssertFalse(queue.isDue(at: start.addingTimeInterval(0.05)))
        XCTAssertTrue(queue.isDue(at: start.addingTimeInterval(0.1)))
    }

    func testARemovedTaskTakesItsWaitingProgressWithIt() {
        var queue = SaveQueue()
        queue.progressed("https://h/a", [Segment(start: 0, end: 10, done: 5)])
        queue.resetProgress("https://h/a")
        XCTAssertTrue(queue.progressReset.contains("https://h/a"))
        queue.taskRemoved("https://h/a")
        let changes = queue.take(tasks: [:], list: list, at: start)
        XCTAssertEqual(changes?.removed, ["https://h/a"])
        XCTAssertEqual(changes?.progress.isEmpty, true)
        XCTAssertFalse(queue.progressReset.contains("https://h/a"))
    }

    func testChangedTasksGoOutInTheOrderTheyFirstChanged() {
        var queue = SaveQueue()
        let tasks = (0 ..< 200).map { task("f\($0)") }
        for t in tasks { queue.taskChanged(t.url) }
        queue.taskChanged(tasks[0].url)
        let table = Dictionary(uniqueKeysWithValues: tasks.map { ($0.url, $0) })
        XCTAssertEqual(queue.take(tasks: table, list: list, at: start)?.upserted.map(\.url), tasks.map(\.url),
                       "a batch's rows are written in the order it was added")
    }

    func testChangesThatMayWaitStayForTheNextTakeUnlessAnotherChangeMayNot() {
        var queue = SaveQueue()
        let a = task("a"), b = task("b"), c = task("c")
        let table = [a.url: a, b.url: b, c.url: c]
        queue.taskChangedMayWait(a.url)
        queue.taskChanged(b.url)
        queue.taskChangedMayWait(c.url)
        queue.taskChanged(c.url)
        queue.progressed(a.url, [Segment(start: 0, end: 10, done: 5)])
        XCTAssertEqual(queue.takeUrgent(tasks: table)?.upserted.map(\.url), [b.url, c.url])
        XCTAssertNil(queue.takeUrgent(tasks: table), "only a's start waits")
        queue.taskChangedMayWait(b.url)
        let rest = queue.take(tasks: table, list: list, at: start)
        XCTAssertEqual(rest?.upserted.map(\.url), [a.url, b.url])
        XCTAssertEqual(rest?.progress.isEmpty, true, "a's segments go with its row")
        XCTAssertNil(queue.take(tasks: table, list: list, at: start))
    }

    func testAFailedUrgentCommitIsGivenBackAndARemovalAsksForAWholeSave() {
        var queue = SaveQueue()
        let a = task("a"), b = task("b")
        queue.taskChanged(a.url)
        let failed = queue.takeUrgent(tasks: [a.url: a])!
        queue.giveBackUrgent(failed)
        XCTAssertEqual(queue.takeUrgent(tasks: [a.url: a])?.upserted.map(\.url), [a.url])
        XCTAssertTrue(queue.holdsOnlyTaskChanges)
        queue.taskRemoved(b.url)
        XCTAssertFalse(queue.holdsOnlyTaskChanges)
    }

    func testATaskRemovedAndChangedAgainGoesOutOnce() {
        var queue = SaveQueue()
        let a = task("a"), b = task("b"), c = task("c")
        for t in [a, b, c] { queue.taskChanged(t.url) }
        queue.taskRemoved(a.url)
        queue.taskRemoved(b.url)
        queue.taskChanged(a.url)
        let changes = queue.take(tasks: [a.url: a, c.url: c], list: list, at: start)
        XCTAssertEqual(changes?.upserted.map(\.url), [a.url, c.url], "b is gone; a goes out once")
        XCTAssertEqual(changes?.removed, [a.url, b.url])
        queue.taskChanged(b.url)
        XCTAssertEqual(queue.take(tasks: [b.url: b], list: list, at: start)?.upserted.map(\.url), [b.url],
                       "the next save is in order again")
    }
}
