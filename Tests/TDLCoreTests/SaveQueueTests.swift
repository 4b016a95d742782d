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
}
