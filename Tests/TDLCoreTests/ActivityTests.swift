import Foundation
import XCTest
@testable import TDLCore

final class ActivityTests: XCTestCase {
    func testPerTaskAndOverallSpeedAndETA() {
        let f = Fixture()
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        f.engine.resolve(a, name: "a", size: 10_000)
        // b's size stays unknown.
        for second in 0 ... 3 {
            f.engine.live = [a: Int64(second * 1000), b: Int64(second * 500)]
            f.manager.tick()
            f.clock.advance(1)
        }
        let activityA = f.manager.activity[a]!
        XCTAssertEqual(activityA.received, 3000)
        XCTAssertEqual(activityA.expected, 10_000)
        XCTAssertEqual(activityA.speed, 1000)
        XCTAssertEqual(activityA.eta!, 7, accuracy: 0.01)
        XCTAssertEqual(f.manager.activity[b]!.speed, 500)
        XCTAssertNil(f.manager.activity[b]!.eta, "unknown size: unknown ETA")
        XCTAssertEqual(f.manager.overallSpeed, 1500)
        XCTAssertNil(f.manager.overallETA, "one size unknown: overall unknown")
        XCTAssertEqual(f.manager.progress(of: a), 0.3, accuracy: 0.001)

        f.manager.pauseTasks([b])
        XCTAssertNil(f.manager.activity[b], "only downloading tasks have activity")
        f.engine.live = [a: 4000]
        f.manager.tick()
        XCTAssertEqual(f.manager.overallSpeed, 1000)
        XCTAssertEqual(f.manager.overallETA!, 6, accuracy: 0.01, "6,000 bytes left at 1,000 B/s")
    }

    func testSpeedIsASlidingWindowAndAStallMeansUnknownETA() {
        var meter = SpeedMeter(window: 4)
        for t in 0 ... 10 { meter.add(time: Double(t), bytes: Int64(t * 1000)) }
        XCTAssertEqual(meter.bytesPerSecond, 1000)
        for t in 11 ... 16 { meter.add(time: Double(t), bytes: 10_000) }
        XCTAssertEqual(meter.bytesPerSecond, 0, "a stall shows within the window")
        XCTAssertNil(meter.eta(remaining: 5000))
        meter.add(time: 17, bytes: 0)
        XCTAssertEqual(meter.bytesPerSecond, 0, "a restart from zero forgets old samples")
        XCTAssertNil(SpeedMeter().eta(remaining: nil))
    }

    func testARetryLastsUntilBytesArriveAgain() {
        let f = Fixture()
        let a = f.add(["a"])[0]
        f.engine.resolve(a, name: "a", size: 10_000)
        f.engine.live = [a: 500]
        f.manager.tick()
        f.engine.onEvent?(.retrying(url: a, reason: .noNetwork("couldn't connect to server"), attempt: 1, limit: 3))
        XCTAssertEqual(f.manager.retrying[a]?.attempt, 1)
        XCTAssertEqual(f.manager.retrying[a]?.limit, 3)
        XCTAssertEqual(f.manager.task(a)?.note, "couldn't connect to server: retry 1 of 3")
        XCTAssertEqual(f.manager.task(a)?.retries, 1)
        f.clock.advance(1)
        f.manager.tick()
        XCTAssertNotNil(f.manager.retrying[a], "no new bytes: still waiting to retry")
        f.engine.live = [a: 600]
        f.clock.advance(1)
        f.manager.tick()
        XCTAssertNil(f.manager.retrying[a], "bytes again: the retry worked")

        f.engine.onEvent?(.retrying(url: a, reason: .timeout, attempt: 1, limit: 3))
        f.engine.fail(a, .timeout)
        XCTAssertNil(f.manager.retrying[a], "a failed task waits for nothing")
        XCTAssertEqual(f.manager.state(of: a), .failed)
    }

    func testEventsForTheUI() {
        let f = Fixture()
        let a = f.add(["a"])[0]
        XCTAssertTrue(f.events.contains(.listChanged))
        XCTAssertTrue(f.events.contains(.taskChanged(a)))
        f.events.removeAll()
        f.manager.pauseTasks([a])
        XCTAssertEqual(f.events, [.taskChanged(a), .allDownloadsOver])
        f.events.removeAll()
        f.manager.deleteTasks([a])
        XCTAssertEqual(f.events, [.deleted(url: a, from: ix(0, 0), count: 1, nth: 1), .listChanged])
    }

    func testLoadRestoresInterruptedDownloads() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.maxDownloadCount = 1
        settings.endedCleanly = false  // the tdl that ran it was killed
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        var tasks = [
            DownloadTask(url: "https://example.com/a", fileName: "a", directory: folder, addTime: t0, state: .downloading),
            DownloadTask(url: "https://example.com/b", fileName: "b", directory: folder, addTime: t0 + 1, state: .waiting),
            DownloadTask(url: "https://example.com/c", fileName: "c", directory: folder, addTime: t0 + 2, state: .paused),
            DownloadTask(url: "https://example.com/d", fileName: "d", directory: folder, addTime: t0 + 3, state: .stopped),
            DownloadTask(url: "https://example.com/e", fileName: "e", directory: folder, addTime: t0 + 4, state: .paused),
        ]
        tasks[3].deletedAt = t0 + 10
        tasks[4].deletedAt = t0 + 20
        let store = FakeStore(SessionSnapshot(tasks: tasks, settings: settings))
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: folder, engine: engine, store: store)
        XCTAssertEqual(try manager.load(), 1)
        XCTAssertEqual(engine.started, ["https://example.com/a"])
        XCTAssertEqual(manager.state(of: "https://example.com/b"), .waiting)
        XCTAssertEqual(manager.toDeleteList, ["https://example.com/e", "https://example.com/d"])
        XCTAssertEqual(manager.downloadList, [["https://example.com/a", "https://example.com/b", "https://example.com/c"]])
        XCTAssertEqual(manager.maxDownloadCount, 1)
    }

    /// The header's counts after a load are those of the loaded list, kept as the rows were
    /// read: a row read again replaces the first one's state, the trash is not counted, and a
    /// task added before the load is counted too.
    func testCountsAfterALoadAreThoseOfTheListAsRead() throws {
        let folder = NSTemporaryDirectory()
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        var snapshot = SessionSnapshot(tasks: [
            DownloadTask(url: "https://example.com/a", fileName: "a", directory: folder, addTime: t0, state: .finished),
            DownloadTask(url: "https://example.com/b", fileName: "b", directory: folder, addTime: t0, state: .failed),
            DownloadTask(url: "https://example.com/c", fileName: "c", directory: folder, addTime: t0, state: .paused),
        ])
        snapshot.insert(DownloadTask(url: "https://example.com/a", fileName: "a", directory: folder, addTime: t0, state: .paused))
        var trashed = DownloadTask(url: "https://example.com/b", fileName: "b", directory: folder, addTime: t0, state: .failed)
        trashed.deletedAt = t0 + 5
        snapshot.insert(trashed)
        let manager = DownloadManager(defaultDirectory: folder, store: FakeStore(snapshot))
        _ = manager.add(["https://example.com/new"])
        _ = try manager.load(restoring: false)
        XCTAssertEqual(manager.counts, [.paused: 2, .waiting: 1])
        XCTAssertEqual(manager.toDeleteList, ["https://example.com/b"])
    }

    /// A clean quit is no interruption, and a relaunch runs what ran before, ahead of an older
    /// task that was waiting behind it (it had been stopped, then resumed).
    func testAfterACleanQuitNothingIsInterruptedAndWhatRanRunsFirst() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.maxDownloadCount = 1
        settings.resumeInterruptedOnLaunch = false
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        let tasks = [
            DownloadTask(url: "https://example.com/older", fileName: "older", directory: folder, addTime: t0, state: .waiting),
            DownloadTask(url: "https://example.com/ran", fileName: "ran", directory: folder, addTime: t0 + 1, state: .downloading),
        ]
        let store = FakeStore(SessionSnapshot(tasks: tasks, settings: settings))
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: folder, engine: engine, store: store)
        XCTAssertEqual(try manager.load(), 0)
        XCTAssertEqual(engine.started, ["https://example.com/ran"])
        XCTAssertEqual(manager.state(of: "https://example.com/older"), .waiting)
        XCTAssertFalse(manager.settings.endedCleanly, "a crash from now on must be told from a clean quit")
        manager.shutdown()
        XCTAssertTrue(manager.settings.endedCleanly)
    }

    /// The screen loads without starting anything, shows the list, then starts: the same
    /// downloads in the same order as a load that starts them at once.
    func testALoadThatLeavesTheStartToLaterStartsTheSameDownloadsWhenAsked() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.maxDownloadCount = 2
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        let tasks = [
            DownloadTask(url: "https://example.com/older", fileName: "older", directory: folder, addTime: t0, state: .waiting),
            DownloadTask(url: "https://example.com/ran", fileName: "ran", directory: folder, addTime: t0 + 1, state: .downloading),
            DownloadTask(url: "https://example.com/newer", fileName: "newer", directory: folder, addTime: t0 + 2, state: .waiting),
        ]
        var started: [[String]] = []
        for deferring in [false, true] {
            let engine = FakeEngine()
            let manager = DownloadManager(defaultDirectory: folder, engine: engine,
                                          store: FakeStore(SessionSnapshot(tasks: tasks, settings: settings)))
            _ = try manager.load(startingDownloads: !deferring)
            if deferring {
                XCTAssertEqual(engine.started, [], "nothing starts before the list is shown")
                XCTAssertTrue(manager.isBusy, "the loaded tasks wait")
                XCTAssertEqual(manager.state(of: "https://example.com/ran"), .waiting)
                manager.startLoadedDownloads()
            }
            started.append(engine.started)
        }
        XCTAssertEqual(started[0], ["https://example.com/ran", "https://example.com/older"])
        XCTAssertEqual(started[1], started[0])
    }

    /// The screen queues a big load's tasks a few milliseconds a turn, then starts them: the
    /// same downloads in the same order, and whatever asks the scheduler meanwhile (a key that
    /// starts one) finds every loaded task queued, not the part done so far.
    func testQueueingALoadTurnByTurnStartsTheSameDownloads() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.maxDownloadCount = 3
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        // Read in an order other than the start order: the oldest come last.
        let tasks = (0 ..< 5_000).reversed().map {
            DownloadTask(url: "https://example.com/\($0)", fileName: "f\($0)", directory: folder, addTime: t0 + Double($0), state: .waiting)
        }
        var started: [[String]] = []
        for turnByTurn in [false, true] {
            let engine = FakeEngine()
            let manager = DownloadManager(defaultDirectory: folder, engine: engine,
                                          store: FakeStore(SessionSnapshot(tasks: tasks, settings: settings)))
            _ = try manager.load(startingDownloads: false)
            if turnByTurn {
                var turns = 0
                while manager.queueLoadedTasks(for: 0) { turns += 1 }
                XCTAssertGreaterThan(turns, 2, "a call with no time left still queues a part, and only a part")
                XCTAssertEqual(engine.started, [], "queueing starts nothing")
                XCTAssertTrue(manager.isBusy)
            }
            manager.startLoadedDownloads()
            started.append(engine.started)
        }
        XCTAssertEqual(started[0], ["https://example.com/0", "https://example.com/1", "https://example.com/2"])
        XCTAssertEqual(started[1], started[0])

        // Part queued, the newest first (read in start order, queued from the end), then the
        // scheduler is asked: the oldest tasks, not queued yet, still start first.
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: folder, engine: engine,
                                      store: FakeStore(SessionSnapshot(tasks: tasks.reversed(), settings: settings)))
        _ = try manager.load(startingDownloads: false)
        XCTAssertTrue(manager.queueLoadedTasks(for: 0))
        manager.startLoadedDownloads()
        XCTAssertEqual(engine.started, started[0])
        XCTAssertFalse(manager.queueLoadedTasks(for: 0), "the scheduler's first use queued the rest")
    }

    func testAFileRenamedIntoPlaceBeforeItsStateWasSavedIsNotDownloadedAgain() throws {
        let folder = NSTemporaryDirectory() + "tdl-reconcile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A crash came after the rename and before the commit: the last checkpoint lags.
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: folder + "/done.bin"))
        var done = DownloadTask(url: "https://example.com/done.bin", fileName: "done.bin", directory: folder, state: .downloading)
        done.size = 10
        done.segments = [Segment(start: 0, end: 10, done: 4)]
        done.received = 4
        // Same situation, but the file there has another size: not ours, so download.
        try Data(repeating: 2, count: 7).write(to: URL(fileURLWithPath: folder + "/other.bin"))
        var other = DownloadTask(url: "https://example.com/other.bin", fileName: "other.bin", directory: folder, state: .downloading)
        other.size = 10
        // Sent back to wait (a lowered limit) after the rename: found finished too.
        try Data(repeating: 3, count: 5).write(to: URL(fileURLWithPath: folder + "/waited.bin"))
        var waited = DownloadTask(url: "https://example.com/waited.bin", fileName: "waited.bin", directory: folder, state: .waiting)
        waited.size = 5
        var crashed = SessionSettings()
        crashed.endedCleanly = false
        let store = FakeStore(SessionSnapshot(tasks: [done, other, waited], settings: crashed))
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: folder, engine: engine, store: store)
        XCTAssertEqual(try manager.load(), 1, "only the other one was interrupted")
        XCTAssertEqual(manager.state(of: done.url), .finished)
        XCTAssertEqual(manager.state(of: waited.url), .finished)
        XCTAssertEqual(engine.started, [other.url])
        manager.flush()
        let saved = store.commits.flatMap(\.upserted).first { $0.url == done.url }
        XCTAssertEqual(saved?.state, .finished)
        XCTAssertEqual(saved?.completedPath, folder + "/done.bin")
    }

    /// A command that does not download (tdl pause --all, say) loads waiting tasks, changes one,
    /// then acts on every waiting one: the scheduler, filled only when first asked, knows each.
    func testTasksLoadedWithoutAnEngineAreScheduledWhenFirstAskedInTheirStateThen() throws {
        let folder = NSTemporaryDirectory()
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        let tasks = ["a", "b", "c", "d"].enumerated().map {
            DownloadTask(url: "https://example.com/\($1)", fileName: $1, directory: folder, addTime: t0 + Double($0), state: .waiting)
        }
        let manager = DownloadManager(defaultDirectory: folder, store: FakeStore(SessionSnapshot(tasks: tasks, settings: SessionSettings())))
        try manager.load(restoring: false)
        XCTAssertEqual(manager.pauseTasks(["https://example.com/b"]), ["https://example.com/b"])
        manager.resumeTasks(["https://example.com/b"])
        XCTAssertTrue(manager.isBusy)
        manager.pauseAllTasks()
        XCTAssertEqual(["a", "b", "c", "d"].map { manager.state(of: "https://example.com/\($0)") }, [.paused, .paused, .paused, .paused])
        XCTAssertFalse(manager.isBusy)
    }

    func testManualLayoutSurvivesALoad() throws {
        let folder = NSTemporaryDirectory()
        var settings = SessionSettings()
        settings.arrangement = .manual
        let tasks = ["x", "y", "z"].map { DownloadTask(url: "https://example.com/\($0)", fileName: $0, directory: folder, state: .stopped) }
        let layout = ManualLayout(sections: [["https://example.com/z", "https://example.com/gone"], ["https://example.com/x"]], titles: ["One", "Two", "Extra"])
        let manager = DownloadManager(defaultDirectory: folder, store: FakeStore(SessionSnapshot(tasks: tasks, settings: settings, manualLayout: layout)))
        try manager.load()
        XCTAssertEqual(manager.sectionTitles, ["One", "Two"])
        XCTAssertEqual(manager.downloadList, [["https://example.com/z"], ["https://example.com/x", "https://example.com/y"]],
                       "unknown URLs drop out; a task the layout lost is still shown")
    }
}

/// The numbers a person reads off the screen: speed under a low limit, the overall ETA.
final class TrustedNumberTests: XCTestCase {
    /// Under a low limit bytes come 16 KiB every 8 s (2 KiB/s): the speed reads about that,
    /// never 0 B/s between bursts, once two bursts came.
    func testBurstsUnderALowLimitReadAsTheirRate() {
        var meter = SpeedMeter()
        var bytes: Int64 = 0
        var seen: [Int64] = []
        for tenth in 0 ... 600 {
            let t = Double(tenth) / 10
            if tenth % 80 == 1 { bytes += 16_384 }
            meter.add(time: t, bytes: bytes)
            if t > 1 { seen.append(meter.bytesPerSecond) }
            if t >= 17 { XCTAssertEqual(Double(meter.bytesPerSecond), 2048, accuracy: 150, "at \(t) s") }
        }
        XCTAssertFalse(seen.contains(0), "never 0 B/s while bytes keep coming")
        // Then nothing more: it falls to zero.
        for tenth in 601 ... 1000 { meter.add(time: Double(tenth) / 10, bytes: bytes) }
        XCTAssertEqual(meter.bytesPerSecond, 0)
    }

    func testTheOverallETACountsWhatWaitsAndIsUnknownWithoutItsSize() {
        let f = Fixture(limit: 1)
        let (a, b) = (f.add(["a"])[0], f.add(["b"])[0])
        f.engine.resolve(a, name: "a", size: 10_000)
        XCTAssertEqual(f.manager.state(of: b), .waiting)
        for second in 0 ... 3 {
            f.engine.live = [a: Int64(second * 1000)]
            f.manager.tick()
            f.clock.advance(1)
        }
        XCTAssertNil(f.manager.overallETA, "b waits and its size is not known yet")
        let activity = f.manager.activity[a]!
        XCTAssertEqual(activity.eta!, 7, accuracy: 0.01)
        f.manager.pauseTasks([b])
        XCTAssertEqual(f.manager.overallETA!, activity.eta!, accuracy: 0.01, "one download: the header says what its row says")
    }

    /// Under a low limit shared by eight connections, each takes one buffer at the start and
    /// the next a minute later: the speed is the average since the start, never 0 B/s.
    func testTheFirstBurstOfALowLimitIsAveragedFromTheStart() {
        let f = Fixture()
        let a = f.add(["a"])[0]
        f.engine.resolve(a, name: "a", size: 50_000_000)
        f.clock.advance(0.2)
        f.engine.live = [a: 131_072]
        for _ in 0 ..< 300 {
            f.manager.tick()
            XCTAssertGreaterThan(f.manager.activity[a]?.speed ?? 0, 0)
            f.clock.advance(0.2)
        }
        XCTAssertEqual(Double(f.manager.activity[a]!.speed), 131_072 / 60, accuracy: 200, "the average over the minute so far")
        f.engine.live = [a: 262_144]
        f.clock.advance(4)
        f.manager.tick()
        XCTAssertEqual(Double(f.manager.activity[a]!.speed), 262_144 / 64.2, accuracy: 200, "the next burst: still from the start")
    }
}
