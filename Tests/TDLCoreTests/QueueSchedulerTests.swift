import Foundation
import XCTest
@testable import TDLCore

/// Queues as the manager runs them, on a clock the tests move: each queue's most at once
/// under the session's limit, its hours (a download whose window closes goes back to waiting
/// with its bytes, and goes on at the next opening), its rate cap shared by its downloads,
/// and the total cap by the rate schedule.
final class QueueSchedulerTests: XCTestCase {
    /// Adds one URL per name in `queue`, each a second after the previous.
    @discardableResult
    func add(_ f: Fixture, _ names: [String], queue: String? = nil, rateLimit: Int64? = nil) -> [String] {
        names.map { name in
            f.clock.advance(1)
            let url = Fixture.url(name)
            f.manager.add([url], options: DownloadOptions(rateLimit: rateLimit, queue: queue))
            return url
        }
    }

    /// The local hour the test clock shows, plus `offset`, as "HH:00".
    func hour(_ f: Fixture, _ offset: Int) -> String {
        let h = (Calendar.current.component(.hour, from: f.clock.now) + offset + 24) % 24
        return (h < 10 ? "0" : "") + "\(h):00"
    }

    /// A queue open from `from` to `to` hours after the clock's hour.
    func window(_ f: Fixture, _ from: Int, _ to: Int) throws -> OpenHours {
        OpenHours([try TimeWindow.parse("\(hour(f, from))-\(hour(f, to))")])
    }

    func testAQueueRunsAtMostItsOwnCountAtOnceBesideTheDefaultQueue() {
        let f = Fixture(limit: 5)
        f.manager.setQueue(QueueDefinition(name: "one", maxActive: 1))
        let queued = add(f, ["a", "b", "c"], queue: "one")
        let plain = add(f, ["d"])
        XCTAssertEqual(f.engine.started, [queued[0], plain[0]], "b and c wait for a; d runs as always")
        f.finish(queued[0])
        XCTAssertEqual(f.engine.started.last, queued[1])
        XCTAssertEqual(f.manager.state(of: queued[2]), .waiting)
    }

    func testTheSessionsLimitStillCapsEveryQueue() {
        let f = Fixture(limit: 2)
        f.manager.setQueue(QueueDefinition(name: "many", maxActive: 5))
        let urls = add(f, ["a", "b", "c"], queue: "many")
        XCTAssertEqual(f.engine.started, [urls[0], urls[1]])
        f.manager.setQueue(QueueDefinition(name: "many", maxActive: 1))
        XCTAssertEqual(f.manager.state(of: urls[1]), .waiting, "a lowered queue count sends its newest back to waiting")
        XCTAssertEqual(f.engine.stopped, [urls[1]])
        XCTAssertEqual(f.manager.state(of: urls[0]), .downloading)
    }

    func testADownloadWhoseWindowClosesWaitsWithItsBytesAndGoesOnAtTheNextOpening() throws {
        let f = Fixture(limit: 3)
        f.manager.setQueue(QueueDefinition(name: "night", hours: try window(f, 1, 2)))
        let night = add(f, ["a"], queue: "night")[0]
        let day = add(f, ["b"])[0]
        XCTAssertEqual(f.engine.started, [day], "outside its hours a queue starts nothing")
        XCTAssertEqual(f.manager.state(of: night), .waiting)
        let opening = try XCTUnwrap(f.manager.nextQueueChange())
        XCTAssertEqual(Calendar.current.component(.minute, from: opening), 0)
        XCTAssertEqual(opening.timeIntervalSince(f.clock.now), 3600 - 2, accuracy: 60)

        f.clock.now = opening
        f.manager.tick()
        XCTAssertEqual(f.engine.started.last, night, "the loop's turn starts it when its window opens")
        f.engine.onEvent?(.checkpoint(url: night, segments: [Segment(start: 0, end: 1000, done: 400)]))

        f.clock.now = opening.addingTimeInterval(3600)
        f.manager.tick()
        XCTAssertEqual(f.manager.state(of: night), .waiting, "back to waiting, not paused")
        XCTAssertEqual(f.engine.stopped, [night])
        XCTAssertEqual(f.manager.task(night)?.received, 400, "its bytes are kept")
        XCTAssertEqual(f.manager.state(of: day), .downloading, "the default queue runs on")
        let next = try XCTUnwrap(f.manager.nextQueueChange())
        XCTAssertEqual(next.timeIntervalSince(opening), 24 * 3600, accuracy: 3600, "the next opening is tomorrow's")

        f.clock.now = next
        f.manager.tick()
        XCTAssertEqual(f.engine.jobs.last?.url, night)
        XCTAssertEqual(f.engine.jobs.last?.segments, [Segment(start: 0, end: 1000, done: 400)], "it goes on from its bytes")
    }

    func testResumingADownloadOfAClosedQueueMakesItWait() throws {
        let f = Fixture(limit: 3)
        f.manager.setQueue(QueueDefinition(name: "later", hours: try window(f, 2, 3)))
        let url = add(f, ["a"], queue: "later")[0]
        f.manager.pauseTasks([url])
        f.manager.resumeTasks([url])
        XCTAssertEqual(f.manager.state(of: url), .waiting)
        XCTAssertTrue(f.engine.started.isEmpty)
        XCTAssertFalse(f.manager.queueMayStart(url))
        XCTAssertFalse(f.manager.isQueueOpen("later"))
        XCTAssertTrue(f.manager.isQueueOpen("default"))
    }

    func testMovingDownloadsBetweenQueuesAndRemovingAQueue() throws {
        let f = Fixture(limit: 3)
        f.manager.setQueue(QueueDefinition(name: "closed", hours: try window(f, 2, 3)))
        let urls = add(f, ["a", "b"])
        XCTAssertEqual(f.engine.started, urls)
        f.manager.setQueue("closed", forTasks: [urls[1]])
        XCTAssertEqual(f.manager.task(urls[1])?.options.queue, "closed")
        XCTAssertEqual(f.manager.state(of: urls[1]), .waiting, "moved into a closed queue, it waits")
        XCTAssertTrue(f.manager.removeQueue("closed"))
        XCTAssertFalse(f.manager.removeQueue("closed"))
        XCTAssertEqual(f.manager.state(of: urls[1]), .downloading, "its queue gone, it runs in the default one")
    }

    func testAQueuesRateCapIsSharedByItsRunningDownloads() {
        let f = Fixture(limit: 5)
        f.manager.setQueue(QueueDefinition(name: "slow", rateLimit: 1000))
        let urls = add(f, ["a", "b"], queue: "slow")
        let own = add(f, ["c"], queue: "slow", rateLimit: 100)[0]
        let free = add(f, ["d"])[0]
        XCTAssertEqual(f.engine.rateLimits[urls[0]], .some(333))
        XCTAssertEqual(f.engine.rateLimits[urls[1]], .some(333))
        XCTAssertEqual(f.engine.rateLimits[own], .some(100), "a download's own lower cap holds")
        XCTAssertFalse(f.engine.rateLimits.keys.contains(free), "the default queue shares nothing")
        f.finish(urls[0])
        f.clock.advance(1)
        f.manager.tick()
        XCTAssertEqual(f.engine.rateLimits[urls[1]], .some(500), "one gone: the others' shares grow")
        f.manager.setQueue(QueueDefinition(name: "slow"))
        XCTAssertEqual(f.engine.rateLimits[urls[1]], .some(nil), "the queue's cap lifted: its own (none) again")
        XCTAssertEqual(f.engine.rateLimits[own], .some(100))
    }

    func testTheRateScheduleCapsTheTotalInItsHoursOnly() throws {
        let f = Fixture(limit: 3)
        f.manager.setGlobalRateLimit(5_000_000)
        let entry = RateSchedule.Entry(rate: 2_000_000, window: try TimeWindow.parse("\(hour(f, 0))-\(hour(f, 1))"))
        f.manager.setRateSchedule(RateSchedule([entry]))
        XCTAssertEqual(f.engine.globalRateLimits.last, .some(2_000_000))
        XCTAssertEqual(f.manager.rateLimitInForce, 2_000_000)
        f.clock.advance(3600)
        f.manager.tick()
        XCTAssertEqual(f.engine.globalRateLimits.last, .some(5_000_000), "outside its hours the session's cap again")
        XCTAssertEqual(f.manager.rateLimitInForce, 5_000_000)
    }

    func testARunsQueuesOverrideTheSessionsAndAreNotSaved() throws {
        let f = Fixture(limit: 5)
        f.manager.setQueue(QueueDefinition(name: "q", maxActive: 3))
        f.manager.useRunQueues(QueueList([QueueDefinition(name: "q", maxActive: 1)]), rateSchedule: nil)
        let urls = add(f, ["a", "b"], queue: "q")
        XCTAssertEqual(f.engine.started, [urls[0]])
        XCTAssertEqual(f.manager.settings.queues["q"]?.maxActive, 3, "the session keeps its own")
        XCTAssertEqual(f.manager.queues["q"]?.maxActive, 1)
    }

    /// Asked for again with another queue, a download runs in that one from its next start.
    func testAskingAgainWithAQueueMovesTheDownload() {
        let f = Fixture(limit: 3)
        f.manager.setQueue(QueueDefinition(name: "other"))
        let url = add(f, ["a"])[0]
        f.manager.add([url], options: DownloadOptions(queue: "other"))
        XCTAssertEqual(f.manager.task(url)?.options.queue, "other")
    }

    /// Without queues or a rate schedule the calendar (ICU's, about 0.5 ms the first time) is
    /// never made; the first queue makes it and reads its hours in it.
    func testTheCalendarIsMadeOnlyWhenQueuesOrTheScheduleNeedIt() throws {
        let f = Fixture(limit: 3)
        f.manager.useRunQueues(QueueList([]), rateSchedule: nil)
        let url = add(f, ["a"])[0]
        f.manager.setGlobalRateLimit(1_000)
        f.clock.advance(5)
        f.manager.tick()
        XCTAssertEqual(f.engine.started, [url])
        XCTAssertEqual(f.manager.rateLimitInForce, 1_000)
        XCTAssertNil(f.manager.nextQueueChange())
        XCTAssertNil(f.manager.queueClock.calendar, "no queue and no schedule: no calendar")
        f.manager.setQueue(QueueDefinition(name: "night", hours: try window(f, 1, 2)))
        XCTAssertNotNil(f.manager.queueClock.calendar)
        XCTAssertFalse(f.manager.isQueueOpen("night"))
        XCTAssertNotNil(f.manager.nextQueueChange())
    }
}

/// A download added with no folder goes to its category's folder, once the category has one.
final class CategoryFolderTests: XCTestCase {
    func testADownloadWithNoFolderGoesToItsCategorysFolder() {
        let f = Fixture(limit: 0)
        var categories = Categories.defaults
        categories.setDirectory(f.folder + "/video", of: "video")
        f.manager.categories = categories
        f.manager.add(["https://example.com/film.mkv", "https://example.com/song.mp3"])
        f.manager.add(["https://example.com/other.mkv"], options: DownloadOptions(directory: f.folder + "/mine"))
        XCTAssertEqual(f.manager.task("https://example.com/film.mkv")?.directory, f.folder + "/video")
        XCTAssertEqual(f.manager.task("https://example.com/song.mp3")?.directory, f.folder, "no folder for music: the usual one")
        XCTAssertEqual(f.manager.task("https://example.com/other.mkv")?.directory, f.folder + "/mine", "-d wins")
    }
}
