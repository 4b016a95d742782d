import Foundation
import XCTest
@testable import TDLCore

/// The tasks the manager reports as changed: a copy of the tasks kept elsewhere (the JSON-RPC's
/// published status) follows the manager from them alone.
final class ChangedTasksTests: XCTestCase {
    func testNothingIsKeptUntilAskedThenEveryWrittenTaskOnce() {
        let f = Fixture(limit: 1)
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        XCTAssertEqual(f.manager.takeChangedTasks(), [], "not tracked yet")

        f.manager.trackChangedTasks()
        let c = f.add(["c"])[0]
        XCTAssertEqual(f.manager.takeChangedTasks(), [c])
        XCTAssertEqual(f.manager.takeChangedTasks(), [], "taken once")

        f.manager.pauseTasks([a])  // b takes the free slot
        XCTAssertEqual(f.manager.takeChangedTasks(), [a, b])
        f.engine.resolve(b, name: "b.bin", size: 100)
        f.engine.onEvent?(.checkpoint(url: b, segments: [Segment(start: 0, end: 100, done: 40)]))
        XCTAssertEqual(f.manager.takeChangedTasks(), [b])
        XCTAssertEqual(f.manager.task(b)?.received, 40)

        f.manager.deleteTasks([c])
        XCTAssertEqual(f.manager.takeChangedTasks(), [c], "to the trash")
        f.manager.restoreToDeleteTasks([c])
        XCTAssertEqual(f.manager.takeChangedTasks(), [c], "back from the trash")
        f.manager.purgeTasks([c])
        XCTAssertEqual(f.manager.takeChangedTasks(), [c], "forgotten")
        XCTAssertNil(f.manager.task(c))
    }

    func testALoadWhileTrackedCountsEveryLoadedTaskAsChanged() throws {
        let tasks = ["https://example.org/1", "https://example.org/2"].map {
            DownloadTask(url: $0, fileName: "f", directory: NSTemporaryDirectory(), state: .paused)
        }
        let manager = DownloadManager(defaultDirectory: NSTemporaryDirectory(), store: FakeStore(SessionSnapshot(tasks: tasks)))
        manager.trackChangedTasks()
        try manager.load()
        XCTAssertEqual(manager.takeChangedTasks(), Set(tasks.map(\.url)))
    }
}
