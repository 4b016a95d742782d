import Foundation
import XCTest
@testable import TDLCore

final class StateChangeTests: XCTestCase {
    func testPauseResumeStopReturnOnlyWhatChanged() {
        let f = Fixture(limit: 3)
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        XCTAssertEqual(f.manager.state(of: a), .downloading)
        XCTAssertEqual(f.manager.pauseTasks([a, "https://nope.example/x"]), [a])
        XCTAssertEqual(f.engine.stopped, [a])
        XCTAssertEqual(f.manager.state(of: a), .paused)
        XCTAssertEqual(f.manager.pauseTasks([a]), [], "already paused")
        XCTAssertEqual(f.manager.resumeTasks([a, b]), [a], "b is downloading already")
        XCTAssertEqual(f.engine.started, [a, b, a])
        XCTAssertEqual(f.manager.stopTasks([a, b]), [a, b])
        XCTAssertEqual(f.manager.state(of: b), .stopped)
        XCTAssertEqual(f.manager.stopTasks([a]), [])
        XCTAssertEqual(f.manager.resumeTasks([a]), [a])
    }

    func testResumeOnlyUnderTheLimitUnlessQueued() {
        let f = Fixture(limit: 1)
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        XCTAssertEqual(f.manager.state(of: b), .waiting)
        f.manager.pauseTasks([b])
        XCTAssertEqual(f.manager.resumeTasks([b]), [], "no free slot")
        XCTAssertEqual(f.manager.state(of: b), .paused)
        XCTAssertEqual(f.manager.resumeTasks([b], queueIfFull: true), [b])
        XCTAssertEqual(f.manager.state(of: b), .waiting)
        f.finish(a)
        XCTAssertEqual(f.manager.state(of: b), .downloading, "the queued task takes the freed slot")
        XCTAssertEqual(f.manager.resumeTasks([a]), [], "finished tasks do not resume")
    }

    func testFailedTaskResumesAndFinishedDoesNot() {
        let f = Fixture()
        let a = f.add(["a"])[0]
        f.engine.fail(a, .timeout)
        XCTAssertEqual(f.manager.state(of: a), .failed)
        XCTAssertEqual(f.manager.task(a)?.failReason, .timeout)
        XCTAssertEqual(f.manager.resumeTasks([a]), [a])
        XCTAssertNil(f.manager.task(a)?.failReason)
    }

    func testRestartDeletesTheFileFirstAndOnlyForSettledTasks() {
        let f = Fixture()
        let (a, b) = (f.add(["a.bin"])[0], f.add(["b.bin"])[0])
        f.finish(a, size: 100)
        let path = f.manager.task(a)!.filePath
        XCTAssertTrue(f.exists(path))
        XCTAssertEqual(f.manager.restartTasks([a, b]), [a], "b is downloading: SDE restarts finished or stopped tasks")
        XCTAssertFalse(f.exists(path))
        XCTAssertEqual(f.manager.task(a)?.received, 0)
        XCTAssertEqual(f.manager.state(of: a), .downloading)
        f.engine.resolve(b, name: "b.bin", size: nil)  // the name is b's own before its part file exists
        f.manager.stopTasks([b])
        let part = f.writeFile("b.bin.part")
        XCTAssertEqual(f.manager.restartTasks([b]), [b])
        XCTAssertFalse(f.exists(part))
    }

    /// Only a task's own files go: a part file under a name it never recorded may be another
    /// task's, and a finished file whose name another task now uses is that task's.
    func testRestartAndDeleteLeaveOtherTasksFilesAlone() {
        let f = Fixture()
        let (a, b) = (f.add(["movie.mkv"])[0], f.add(["https://mirror.example.org/movie.mkv"])[0])
        f.finish(a)
        try? FileManager.default.removeItem(atPath: f.manager.task(a)!.filePath)  // the user deleted it
        f.finish(b)  // b took the free name
        XCTAssertEqual(f.manager.task(b)!.filePath, f.manager.task(a)!.filePath)
        f.manager.restartTasks([a])
        XCTAssertTrue(f.exists(f.manager.task(b)!.filePath), "b's file is not a's to delete")

        let c = f.add(["doc.pdf"])[0]
        f.manager.pauseTasks([c])
        let foreign = f.writeFile("doc.pdf.part")  // c never recorded that name: not its part file
        f.manager.deleteFilesOfTasks([c])
        XCTAssertTrue(f.exists(foreign))
    }

    func testDeleteFilesKeepsTheRecord() {
        let f = Fixture()
        let (a, b, c) = (f.add(["a.bin"])[0], f.add(["b.bin"])[0], f.add(["c.bin"])[0])
        f.finish(a)
        f.engine.resolve(b, name: "b.bin", size: nil)
        f.manager.pauseTasks([b, c])
        let part = f.writeFile("b.bin.part")
        XCTAssertEqual(f.manager.deleteFilesOfTasks([a, b, c]), [a, b], "c had no file")
        XCTAssertFalse(f.exists((f.folder as NSString).appendingPathComponent("a.bin")))
        XCTAssertFalse(f.exists(part))
        XCTAssertEqual(f.manager.state(of: a), .stopped)
        XCTAssertNotNil(f.manager.task(a))
        XCTAssertEqual(f.manager.state(of: c), .paused)
    }

    func testDeleteFilesOfADownloadingTaskStopsIt() {
        let f = Fixture()
        let a = f.add(["a.bin"])[0]
        XCTAssertEqual(f.manager.deleteFilesOfTasks([a]), [a])
        XCTAssertEqual(f.engine.stopped, [a])
        XCTAssertEqual(f.manager.state(of: a), .stopped)
    }

    /// The screen acts on the URLs of a section's rows or of marked rows: each operation
    /// returns the tasks that changed, skipping unknown URLs and tasks it does not apply to.
    func testOperationsOnASectionsURLs() {
        let f = Fixture(limit: 0)
        f.manager.sortListBy(type: .fileType)
        let urls = f.add(["a.jpg", "b.jpg", "c.mp3"])
        XCTAssertEqual(f.manager.sectionTitles, ["Image", "Audio"])
        let nope = "https://nope.example/x"
        XCTAssertEqual(f.manager.pauseTasks([urls[1], nope]), [urls[1]])
        XCTAssertEqual(f.manager.state(of: urls[1]), .paused)
        XCTAssertEqual(f.manager.pauseTasks(f.manager.downloadList[0]), [urls[0]])
        XCTAssertEqual(f.manager.resumeTasks(f.manager.downloadList[0]), [urls[0], urls[1]])
        XCTAssertEqual(f.manager.stopTasks([urls[2]]), [urls[2]])
        XCTAssertEqual(f.manager.stopTasks(f.manager.downloadList[0]), [urls[0], urls[1]])
        XCTAssertEqual(f.manager.resumeTasks([urls[2]]), [urls[2]])
        f.manager.stopTasks(f.manager.downloadList[1])
        XCTAssertEqual(f.manager.restartTasks(f.manager.downloadList[1]), [urls[2]])
        XCTAssertEqual(f.manager.restartTasks([nope]), [])
        XCTAssertEqual(f.manager.deleteFilesOfTasks([urls[2]]), [urls[2]], "a downloading task counts")
        XCTAssertEqual(f.manager.deleteTasks(f.manager.downloadList[1]), [urls[2]: ix(1, 0)])
        XCTAssertEqual(f.manager.sectionTitles, ["Image"])
        XCTAssertEqual(f.manager.deleteTasks([urls[1], urls[0], urls[0], nope]), [urls[1]: ix(0, 1), urls[0]: ix(0, 0)])
        XCTAssertEqual(f.manager.downloadList, [[]])
        XCTAssertEqual(f.manager.deleteTasks(f.manager.downloadList[0]), [:])
    }

    func testAllTaskVariants() {
        let f = Fixture(limit: 2)
        let d = f.add(["d"])[0]
        f.finish(d)  // while downloading: the engine finishes only what runs
        let urls = f.add(["a", "b", "c"]) + [d]
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.downloading, .downloading, .waiting, .finished])

        f.manager.pauseAllTasks()
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.paused, .paused, .paused, .finished])
        XCTAssertFalse(f.manager.isBusy)

        f.manager.resumeAllTasks()
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.downloading, .downloading, .waiting, .finished], "under the limit")
        XCTAssertEqual(f.manager.maxDownloadCount, 2)

        f.manager.stopTasks(urls)
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.stopped, .stopped, .stopped, .finished])

        f.manager.resumeAllTasks(underLimit: false)
        XCTAssertEqual(f.manager.maxDownloadCount, 0, "SDE lifts the limit")
        XCTAssertEqual(urls.map { f.manager.state(of: $0)! }, [.downloading, .downloading, .downloading, .finished])
    }

    func testDeleteAllTasksKeepsFinishedFilesWhenAsked() {
        let f = Fixture()
        let (a, b) = (f.add(["a.bin"])[0], f.add(["b.bin"])[0])
        f.finish(a)
        f.engine.resolve(b, name: "b.bin", size: nil)
        f.manager.pauseTasks([b])
        let finished = f.manager.task(a)!.filePath
        let part = f.writeFile("b.bin.part")
        XCTAssertEqual(f.manager.purgeTasks(f.manager.downloadList.flatMap { $0 }).count, 2)
        XCTAssertTrue(f.exists(finished))
        XCTAssertFalse(f.exists(part), "keepFinishedFile keeps only finished files")
        XCTAssertTrue(f.manager.allTasksSet.isEmpty)
        XCTAssertEqual(f.manager.downloadList, [[]])
    }
}
