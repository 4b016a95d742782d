import XCTest
import TDLCore
import TDLSession

/// Requests carried out on a manager without an engine, as on a saved session nobody runs.
final class ControlActionsTests: XCTestCase {
    var folder = ""
    var manager: DownloadManager!

    override func setUp() {
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-session-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        manager = DownloadManager(identifier: "test", defaultDirectory: folder)
    }

    override func tearDown() {
        manager = nil
        try? FileManager.default.removeItem(atPath: folder)
    }

    func url(_ name: String) -> String { "https://example.com/files/\(name)" }

    func testSameOptionsMeansTheSameFolderChecksumAndLimitAndNoFileName() {
        let plain = ControlRequest.Item(url: url("a"), dir: "/d")
        XCTAssertTrue(plain.sameOptions(as: ControlRequest.Item(url: url("b"), dir: "/d")))
        XCTAssertFalse(plain.sameOptions(as: ControlRequest.Item(url: url("b"), dir: "/e")))
        XCTAssertFalse(plain.sameOptions(as: ControlRequest.Item(url: url("b"), dir: "/d", maxDownloadLimit: 5)))
        XCTAssertFalse(plain.sameOptions(as: ControlRequest.Item(url: url("b"), dir: "/d", checksum: "md5=00")))
        // A file name is for one URL: an item with one never joins a batch, even an identical one.
        let named = ControlRequest.Item(url: url("c"), dir: "/d", out: "c.bin")
        XCTAssertFalse(named.sameOptions(as: named))
        XCTAssertFalse(plain.sameOptions(as: named))
    }

    func testAddMakesOneBatchPerRunOfItemsWithTheSameOptions() {
        let other = (folder as NSString).appendingPathComponent("other")
        let items = [
            ControlRequest.Item(url: url("1")), ControlRequest.Item(url: url("2")),
            ControlRequest.Item(url: url("3"), dir: other, maxDownloadLimit: 1000),
            ControlRequest.Item(url: url("4"), dir: other, maxDownloadLimit: 1000),
            ControlRequest.Item(url: url("5"), out: "five.bin"),
            ControlRequest.Item(url: url("6")),
        ]
        let results = ControlActions.add(items, to: manager)
        XCTAssertEqual(results.map(\.added), [[url("1"), url("2")], [url("3"), url("4")], [url("5")], [url("6")]])
        XCTAssertEqual(manager.task(url("3"))?.directory, other)
        XCTAssertEqual(manager.task(url("4"))?.rateLimit, 1000)
        XCTAssertEqual(manager.task(url("1"))?.directory, folder)
        XCTAssertNil(manager.task(url("1"))?.rateLimit)
        XCTAssertEqual(manager.task(url("5"))?.fileName, "five.bin")
        XCTAssertEqual(manager.task(url("6"))?.fileName, "6")
    }

    func testALimitGivenAgainAppliesToAURLTheSessionHas() {
        _ = ControlActions.add([ControlRequest.Item(url: url("a"))], to: manager)
        let results = ControlActions.add([ControlRequest.Item(url: url("a"), maxDownloadLimit: 2048)], to: manager)
        XCTAssertEqual(results.map(\.existing), [[url("a")]])
        XCTAssertEqual(manager.task(url("a"))?.rateLimit, 2048)
    }

    func testPerformAddReportsEachURLAndANoteForTheScreen() {
        let reply = ControlActions.perform(ControlRequest(command: .add, items: [
            ControlRequest.Item(url: url("a")), ControlRequest.Item(url: url("b")), ControlRequest.Item(url: "not a url"),
        ]), on: manager)
        XCTAssertEqual(reply.lines, ["added \(url("a"))", "added \(url("b"))"])
        XCTAssertEqual(reply.problems.count, 1)
        XCTAssertTrue(reply.problems[0].hasPrefix("not a url: "), reply.problems[0])
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.note, "added 2 downloads from another tdl")
        XCTAssertNotNil(manager.task(url("a")))
    }

    func testPerformAddOfNothingNewLeavesNoNote() {
        _ = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        let again = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertEqual(again.status, ExitStatus.ok)
        XCTAssertNil(again.note)
        XCTAssertEqual(again.lines.count, 1)
        XCTAssertTrue(again.lines[0].hasSuffix(": \(url("a"))"), again.lines[0])
    }

    func testPauseAndResumeSayWhatChangedAndWhatDidNot() {
        _ = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        let before = manager.state(of: url("a"))!
        let pause = ControlActions.perform(ControlRequest(command: .pause, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertTrue(before.isActive, "\(before)")
        XCTAssertEqual(pause.lines, ["paused \(url("a"))"])
        XCTAssertEqual(pause.note, "paused 1 download from another tdl")
        XCTAssertEqual(manager.state(of: url("a")), .paused)
        let pauseAgain = ControlActions.perform(ControlRequest(command: .pause, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertEqual(pauseAgain.lines, ["unchanged (paused) \(url("a"))"])
        XCTAssertNil(pauseAgain.note)
        XCTAssertEqual(pauseAgain.status, ExitStatus.ok)
        let resume = ControlActions.perform(ControlRequest(command: .resume, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertEqual(resume.lines, ["resumed \(url("a"))"])
        XCTAssertNotEqual(manager.state(of: url("a")), .paused)
    }

    func testResumeOfAnUnknownURLFailsWithStatus2AndNamesIt() {
        _ = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        _ = manager.pauseTasks([url("a")])
        let reply = ControlActions.perform(ControlRequest(command: .resume, items: [
            ControlRequest.Item(url: url("a")), ControlRequest.Item(url: url("nowhere")),
        ]), on: manager)
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.status, 2)
        XCTAssertEqual(reply.problems, ["not in the session: \(url("nowhere"))"])
        // The known one is still carried out.
        XCTAssertEqual(reply.lines, ["resumed \(url("a"))"])
    }

    func testAnUnknownURLIsNamedWithoutItsPassword() {
        let reply = ControlActions.perform(ControlRequest(command: .pause, items: [ControlRequest.Item(url: "https://me:secret@example.com/x")]),
                                           on: manager)
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.problems.count, 1)
        XCTAssertFalse(reply.problems[0].contains("secret"), reply.problems[0])
    }

    func testRemoveMovesToTheTrashAndAddingAgainBringsItBack() {
        manager.isTrashOpened = true
        _ = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        let removed = ControlActions.perform(ControlRequest(command: .remove, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertEqual(removed.lines, ["moved to the trash \(url("a"))"])
        XCTAssertEqual(manager.toDeleteList, [url("a")])
        let again = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a"))]), on: manager)
        XCTAssertEqual(again.status, ExitStatus.ok)
        XCTAssertEqual(again.lines.count, 1)
        XCTAssertTrue(again.lines[0].hasPrefix("back from the trash"), again.lines[0])
        XCTAssertTrue(again.lines[0].hasSuffix(url("a")), again.lines[0])
        XCTAssertEqual(manager.toDeleteList, [])
    }

    func testStatusNamesTheAskedTasksAndUnnamedOnlyTheActiveOnes() {
        _ = ControlActions.perform(ControlRequest(command: .add, items: [ControlRequest.Item(url: url("a")), ControlRequest.Item(url: url("b"))]),
                                   on: manager)
        _ = manager.pauseTasks([url("b")])
        let named = ControlActions.perform(ControlRequest(command: .status, items: [ControlRequest.Item(url: url("b"))]), on: manager)
        XCTAssertEqual(named.tasks?.map(\.url), [url("b")])
        XCTAssertEqual(named.tasks?.first?.state, "paused")
        XCTAssertEqual(named.tasks?.first?.path, (folder as NSString).appendingPathComponent("b"))
        let unnamed = ControlActions.perform(ControlRequest(command: .status, items: []), on: manager)
        let active = [url("a"), url("b")].filter { manager.state(of: $0)?.isActive == true }
        XCTAssertEqual(unnamed.tasks?.map(\.url), active)
        XCTAssertFalse(unnamed.tasks?.contains { $0.url == url("b") } ?? true)
    }
}
