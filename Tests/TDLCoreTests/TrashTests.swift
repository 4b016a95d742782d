import Foundation
import XCTest
@testable import TDLCore

final class TrashTests: XCTestCase {
    func testDeleteMovesToTheTrashNewestFirstAndReportsOriginalPlaces() {
        let f = Fixture()
        let urls = f.add(["a", "b", "c", "d", "e"])
        XCTAssertEqual(f.manager.deleteTasks([urls[0]]), [urls[0]: ix(0, 0)])
        XCTAssertEqual(f.manager.deleteTasks([urls[3], urls[1], "https://nope.example/x", urls[0]]), [urls[3]: ix(0, 2), urls[1]: ix(0, 0)],
                       "places before the batch; unknown and trashed URLs are skipped")
        XCTAssertEqual(f.manager.toDeleteList, [urls[1], urls[3], urls[0]])
        XCTAssertEqual(f.manager.downloadList, [[urls[2], urls[4]]])
        let deleted = f.events.compactMap { event -> [String]? in
            if case let .deleted(url, _, count, nth) = event { return [url, "\(count)", "\(nth)"] }
            return nil
        }
        XCTAssertEqual(deleted, [[urls[0], "1", "1"], [urls[3], "2", "1"], [urls[1], "2", "2"]])
        XCTAssertNotNil(f.manager.task(urls[0])?.deletedAt)
    }

    func testDeletingADownloadingTaskStopsItOnceAndFreesTheSlot() {
        let f = Fixture(limit: 1)
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        f.manager.deleteTasks([a])
        XCTAssertEqual(f.engine.stopped, [a])
        XCTAssertEqual(f.manager.state(of: a), .waiting, "kept for a restore, but nothing in the trash runs")
        XCTAssertEqual(f.manager.state(of: b), .downloading)

        let g = Fixture(limit: 1)
        let c = g.add(["c"])[0]
        g.manager.purgeTasks([c])
        XCTAssertEqual(g.engine.stopped, [c], "stopped once, not twice")
        XCTAssertNil(g.manager.task(c))
    }

    func testRestoreInManualModeKeepsTheGivenOrderAtTheLocation() {
        let f = Fixture()
        f.manager.arrange(.manual)
        let urls = f.add(["a", "b", "c", "d"])  // each on top: d c b a
        f.manager.deleteTasks([urls[0], urls[2]])
        XCTAssertEqual(f.manager.downloadList, [[urls[3], urls[1]]])
        XCTAssertEqual(f.manager.restoreToDeleteTasks([urls[0], urls[2], urls[0], urls[3]], toLocation: ix(0, 1)), [ix(0, 1), ix(0, 2)])
        XCTAssertEqual(f.manager.downloadList, [[urls[3], urls[0], urls[2], urls[1]]])
        XCTAssertTrue(f.manager.toDeleteList.isEmpty)
        XCTAssertNil(f.manager.task(urls[0])?.deletedAt)
        f.assertIndexPathsConsistent()
    }

    func testRestoreByIndexAndAllInPredefinedModeLandsSorted() {
        let f = Fixture()
        let urls = f.add(["a", "b", "c", "d"])
        f.manager.deleteTasks([urls[1]])
        f.manager.deleteTasks([urls[2]])
        f.manager.deleteTasks([urls[0]])
        XCTAssertEqual(f.manager.toDeleteList, [urls[0], urls[2], urls[1]])
        XCTAssertEqual(f.manager.restoreToDeleteTasks([urls[2], "https://nope.example/x", urls[3]], toLocation: ix(5, 5)), [ix(0, 0)],
                       "c goes back by add time; the location is ignored, and what is not in the trash too")
        XCTAssertEqual(f.manager.downloadList, [[urls[2], urls[3]]])
        f.manager.restoreToDeleteTasks(f.manager.toDeleteList)
        XCTAssertEqual(f.manager.downloadList, [urls])
        XCTAssertEqual(f.manager.restoreToDeleteTasks(urls), [])
    }

    func testTrashAndRestoreKeepTheStateATaskHad() {
        let f = Fixture(limit: 1)
        let (a, b, c) = (f.add(["a"])[0], f.add(["b"])[0], f.add(["c"])[0])
        f.manager.pauseTasks([b])
        f.manager.deleteTasks([b, c])
        f.manager.pauseTasks([a])
        XCTAssertEqual(f.engine.started, [a], "nothing in the trash starts when a slot frees")
        f.manager.restoreToDeleteTasks([b, c])
        XCTAssertEqual(f.manager.state(of: b), .paused)
        XCTAssertEqual(f.manager.state(of: c), .downloading, "a waiting task comes back waiting, and takes the free slot")
    }

    func testResumingATaskInTheTrashBringsItBack() {
        let f = Fixture()
        let a = f.add(["a"])[0]
        f.manager.pauseTasks([a])
        f.manager.deleteTasks([a])
        XCTAssertEqual(f.manager.resumeTasks([a]), [a])
        XCTAssertNil(f.manager.task(a)?.deletedAt)
        XCTAssertEqual(f.manager.state(of: a), .downloading)
    }

    func testCleanupByURLIndexAndRangeKeepsFinishedFiles() {
        let f = Fixture()
        let urls = f.add(["a.bin", "b.bin", "c.bin", "d.bin", "e.bin"])
        for url in urls { f.finish(url) }
        let paths = urls.map { f.manager.task($0)!.filePath }
        for url in urls { f.manager.deleteTasks([url]) }
        XCTAssertEqual(f.manager.toDeleteList, urls.reversed())
        XCTAssertTrue(paths.allSatisfy(f.exists), "the trash keeps files")

        XCTAssertEqual(f.manager.cleanupToDeleteTasks([urls[4], "https://nope.example/x"]), [urls[4]: 0])
        XCTAssertTrue(f.exists(paths[4]), "a finished file stays on every purge path")
        XCTAssertEqual(f.manager.cleanupToDeleteTasks([urls[2]]), [urls[2]: 1], "each task's place in the trash")
        XCTAssertEqual(f.manager.toDeleteList, [urls[3], urls[1], urls[0]])
        XCTAssertEqual(f.manager.cleanupToDeleteTasks([urls[1], urls[2]]), [urls[1]: 1], "a task no longer there is skipped")
        XCTAssertTrue(f.exists(paths[1]), "kept finished file")
        XCTAssertNil(f.manager.task(urls[1]))
        XCTAssertEqual(f.manager.cleanupToDeleteTasks(f.manager.toDeleteList), [urls[3]: 0, urls[0]: 1])
        XCTAssertTrue(f.manager.allTasksSet.isEmpty)
    }

    func testEmptyToDeleteList() {
        let f = Fixture()
        let urls = f.add(["a", "b"])
        f.engine.resolve(urls[0], name: "a", size: nil)
        f.manager.pauseTasks(urls)
        let part = f.writeFile("a.part")
        f.manager.deleteTasks(f.manager.downloadList.flatMap { $0 })
        XCTAssertEqual(f.manager.cleanupToDeleteTasks(f.manager.toDeleteList).count, 2)
        XCTAssertFalse(f.exists(part))
        XCTAssertTrue(f.manager.toDeleteList.isEmpty)
        XCTAssertEqual(f.manager.cleanupToDeleteTasks(urls), [:])
    }

    func testDeleteForGoodKeepsFinishedFiles() {
        let f = Fixture()
        let (a, b) = (f.add(["a.bin"])[0], f.add(["b.bin"])[0])
        f.finish(a)
        f.finish(b)
        let (pathA, pathB) = (f.manager.task(a)!.filePath, f.manager.task(b)!.filePath)
        f.manager.purgeTasks([a])
        f.manager.purgeTasks([b])
        XCTAssertTrue(f.exists(pathA))
        XCTAssertTrue(f.exists(pathB))
        XCTAssertTrue(f.manager.toDeleteList.isEmpty)
        XCTAssertTrue(f.manager.allTasksSet.isEmpty)
    }
}
