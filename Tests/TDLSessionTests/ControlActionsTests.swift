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

    func testOneAddCarriesEachURLsOwnOptions() {
        let other = (folder as NSString).appendingPathComponent("other")
        let items = [
            DownloadRequest(url: url("1")), DownloadRequest(url: url("2")),
            DownloadRequest(url: url("3"), options: DownloadOptions(directory: other, rateLimit: 1000)),
            DownloadRequest(url: url("4"), options: DownloadOptions(directory: other, rateLimit: 1000, connections: 3)),
            DownloadRequest(url: url("5"), options: DownloadOptions(fileName: "five.bin")),
            DownloadRequest(url: url("6")),
        ]
        let reply = ControlActions.perform(ControlRequest(command: .add, items: items), on: SessionSaver(manager))
        XCTAssertEqual(reply.lines, (1...6).map { "added " + url("\($0)") })
        XCTAssertEqual(manager.task(url("3"))?.directory, other)
        XCTAssertEqual(manager.task(url("4"))?.options.rateLimit, 1000)
        XCTAssertEqual(manager.task(url("4"))?.options.connections, 3)
        XCTAssertEqual(manager.task(url("1"))?.directory, folder)
        XCTAssertEqual(manager.task(url("1"))?.options, DownloadOptions())
        XCTAssertEqual(manager.task(url("5"))?.fileName, "five.bin")
        XCTAssertEqual(manager.task(url("6"))?.fileName, "6")
        let addTimes = (1...6).compactMap { manager.task(url("\($0)"))?.addTime }
        XCTAssertEqual(addTimes, addTimes.sorted(), "one batch, in the order given")
    }

    func testAFileNameWithNothingUsableIsRefusedWithItsURL() {
        let reply = ControlActions.perform(ControlRequest(command: .add, items: [
            DownloadRequest(url: url("a"), options: DownloadOptions(fileName: "..")),
            DownloadRequest(url: url("b"), options: DownloadOptions(fileName: "../..")),
        ]), on: SessionSaver(manager))
        XCTAssertEqual(reply.problems, [url("a") + ": the file name given has nothing usable in it",
                                        url("b") + ": the file name ../..: \"..\" would leave the download folder"])
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertNil(manager.task(url("a")))
    }

    func testALimitGivenAgainAppliesToAURLTheSessionHas() {
        manager.add([url("a")])
        let result = manager.add([DownloadRequest(url: url("a"), options: DownloadOptions(rateLimit: 2048))])
        XCTAssertEqual(result.existing, [url("a")])
        XCTAssertEqual(manager.task(url("a"))?.options.rateLimit, 2048)
        manager.add([DownloadRequest(url: url("a"), options: DownloadOptions(rateLimit: 0))])
        XCTAssertNil(manager.task(url("a"))?.options.rateLimit, "0 lifts it")
    }

    func testPerformAddReportsEachURLAndANoteForTheScreen() {
        let reply = ControlActions.perform(ControlRequest(command: .add, items: [
            DownloadRequest(url: url("a")), DownloadRequest(url: url("b")), DownloadRequest(url: "not a url"),
        ]), on: SessionSaver(manager))
        XCTAssertEqual(reply.lines, ["added \(url("a"))", "added \(url("b"))"])
        XCTAssertEqual(reply.problems.count, 1)
        XCTAssertTrue(reply.problems[0].hasPrefix("not a url: "), reply.problems[0])
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.note, "added 2 downloads from another tdl")
        XCTAssertNotNil(manager.task(url("a")))
    }

    func testPerformAddOfNothingNewLeavesNoNote() {
        _ = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        let again = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertEqual(again.status, ExitStatus.ok)
        XCTAssertNil(again.note)
        XCTAssertEqual(again.lines.count, 1)
        XCTAssertTrue(again.lines[0].hasSuffix(": \(url("a"))"), again.lines[0])
    }

    func testPauseAndResumeSayWhatChangedAndWhatDidNot() {
        _ = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        let before = manager.state(of: url("a"))!
        let pause = ControlActions.perform(ControlRequest(command: .pause, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertTrue(before.isActive, "\(before)")
        XCTAssertEqual(pause.lines, ["paused \(url("a"))"])
        XCTAssertEqual(pause.note, "paused 1 download from another tdl")
        XCTAssertEqual(manager.state(of: url("a")), .paused)
        let pauseAgain = ControlActions.perform(ControlRequest(command: .pause, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertEqual(pauseAgain.lines, ["unchanged (paused) \(url("a"))"])
        XCTAssertNil(pauseAgain.note)
        XCTAssertEqual(pauseAgain.status, 1, "nothing changed: the command says so and fails")
        let resume = ControlActions.perform(ControlRequest(command: .resume, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertEqual(resume.lines, ["resumed \(url("a"))"])
        XCTAssertNotEqual(manager.state(of: url("a")), .paused)
    }

    func testResumeOfAnUnknownURLFailsWithStatus2AndNamesIt() {
        _ = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        _ = manager.pauseTasks([url("a")])
        let reply = ControlActions.perform(ControlRequest(command: .resume, items: [
            DownloadRequest(url: url("a")), DownloadRequest(url: url("nowhere")),
        ]), on: SessionSaver(manager))
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.status, 2)
        XCTAssertEqual(reply.problems, ["not in the session: \(url("nowhere"))"])
        // The known one is still carried out.
        XCTAssertEqual(reply.lines, ["resumed \(url("a"))"])
    }

    func testAnUnknownURLIsNamedWithoutItsPassword() {
        let reply = ControlActions.perform(ControlRequest(command: .pause, urls: ["https://me:secret@example.com/x"]),
                                           on: SessionSaver(manager))
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(reply.problems.count, 1)
        XCTAssertFalse(reply.problems[0].contains("secret"), reply.problems[0])
    }

    func testRemoveMovesToTheTrashAndAddingAgainBringsItBack() {
        _ = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        let removed = ControlActions.perform(ControlRequest(command: .remove, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertEqual(removed.lines, ["moved to the trash \(url("a"))"])
        XCTAssertEqual(manager.toDeleteList, [url("a")])
        let again = ControlActions.perform(ControlRequest(command: .add, urls: [url("a")]), on: SessionSaver(manager))
        XCTAssertEqual(again.status, ExitStatus.ok)
        XCTAssertEqual(again.lines.count, 1)
        XCTAssertTrue(again.lines[0].hasPrefix("back from the trash"), again.lines[0])
        XCTAssertTrue(again.lines[0].hasSuffix(url("a")), again.lines[0])
        XCTAssertEqual(manager.toDeleteList, [])
    }

    func testStatusNamesTheAskedTasksAndUnnamedOnlyTheActiveOnes() {
        _ = ControlActions.perform(ControlRequest(command: .add, urls: [url("a"), url("b")]),
                                   on: SessionSaver(manager))
        _ = manager.pauseTasks([url("b")])
        let named = ControlActions.perform(ControlRequest(command: .status, urls: [url("b")]), on: SessionSaver(manager))
        XCTAssertEqual(named.tasks?.map(\.url), [url("b")])
        XCTAssertEqual(named.tasks?.first?.state, "paused")
        XCTAssertEqual(named.tasks?.first?.path, (folder as NSString).appendingPathComponent("b"))
        let unnamed = ControlActions.perform(ControlRequest(command: .status, items: []), on: SessionSaver(manager))
        let active = [url("a"), url("b")].filter { manager.state(of: $0)?.isActive == true }
        XCTAssertEqual(unnamed.tasks?.map(\.url), active)
        XCTAssertFalse(unnamed.tasks?.contains { $0.url == url("b") } ?? true)
    }
}

/// `--all` over a running session: one order for "resume everything", the oldest first.
final class ResumeAllOrderTests: XCTestCase {
    /// Remembers what it was asked to start, and starts nothing.
    final class StartRecorder: TransferEngine {
        var onEvent: ((TransferEvent) -> Void)?
        var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
        var isRecorded: ((_ url: String) -> Bool)?
        var started: [String] = []
        func start(_ job: TransferJob) { started.append(job.url) }
        func stop(url: String) {}
        func liveProgress() -> [String: Int64] { [:] }
        func setGlobalRateLimit(_ bytesPerSecond: Int64?) {}
        func setRateLimit(url: String, _ bytesPerSecond: Int64?) {}
        func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> { [] }
        let waker: @Sendable () -> Void = {}
        func shutdown() {}
    }

    func testResumeAllStartsTheOldestFirst() {
        let engine = StartRecorder()
        let manager = DownloadManager(identifier: "test", defaultDirectory: NSTemporaryDirectory(), engine: engine)
        manager.downloadNewFileImmediately = false
        manager.maxDownloadCount = 1
        var now = Date(timeIntervalSince1970: 1_000_000)
        manager.clock = { now }
        let urls = ["old", "middle", "new"].map { "https://example.com/\($0).bin" }
        for url in urls {
            manager.add([url])
            now += 60
        }
        let reply = ControlActions.perform(ControlRequest(command: .resume, urls: [], all: true), on: SessionSaver(manager))
        XCTAssertEqual(engine.started, [urls[0]], "the free slot goes to the oldest")
        XCTAssertEqual(reply.lines, urls.map { "resumed " + $0 })
    }
}
