import Foundation
import TDLCore
@testable import TDLTerminal
import XCTest

/// Queues on the screen: a row says its queue when it is not the default, and the header says
/// when the next window opens while everything waits for one.
final class QueueOnScreenTests: XCTestCase {
    func testARowNamesItsQueueAndTheHeaderTheNextWindow() throws {
        let screen = try ScreenFixture([("night.bin", .waiting), ("plain.bin", .paused)])
        let manager = screen.manager
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        manager.queueCalendar = utc
        // Noon, UTC.
        let noon = utc.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: 12))!
        manager.clock = { noon }
        let renderer = ListRenderer(manager: manager)
        XCTAssertFalse(renderer.header(view: "Downloads", inTrash: false).limit.contains("next window"), "no queues: nothing to wait for")

        manager.setQueue(QueueDefinition(name: "night", maxActive: 2, hours: OpenHours([TimeWindow(start: 22 * 60, end: 6 * 60)])))
        manager.setQueue("night", forTasks: [ScreenFixture.url("night.bin")])
        let layout = RowLayout(width: 120)
        XCTAssertTrue(renderer.taskLine(ScreenFixture.url("night.bin"), layout: layout, marked: false).trimmingCharacters(in: .whitespaces).hasSuffix("Waiting [night]"))
        XCTAssertTrue(renderer.taskLine(ScreenFixture.url("plain.bin"), layout: layout, marked: false).trimmingCharacters(in: .whitespaces).hasSuffix("Paused"), "the default queue is not named")
        XCTAssertTrue(renderer.detailLines(ScreenFixture.url("night.bin")).contains("Queue:         night"))
        XCTAssertTrue(renderer.header(view: "Downloads", inTrash: false).limit.hasSuffix("next window 22:00"),
                      renderer.header(view: "Downloads", inTrash: false).limit)

        // Inside the window nothing waits for it; on another day the header names the day.
        manager.clock = { utc.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: 23))! }
        XCTAssertFalse(renderer.header(view: "Downloads", inTrash: false).limit.contains("next window"))
        manager.setQueue(QueueDefinition(name: "night", hours: OpenHours([TimeWindow(start: 22 * 60, end: 23 * 60, days: try Weekdays.parse("sat"))])))
        manager.clock = { noon }  // a Thursday
        XCTAssertTrue(renderer.header(view: "Downloads", inTrash: false).limit.hasSuffix("next window Sat 22:00"),
                      renderer.header(view: "Downloads", inTrash: false).limit)
    }

    /// A fixture whose clock is noon UTC, with a night queue (22:00-06:00, 2 at once).
    func nightFixture() throws -> ScreenFixture {
        let screen = try ScreenFixture([("a.bin", .paused), ("b.bin", .paused), ("c.bin", .paused)])
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        screen.manager.queueCalendar = utc
        let noon = utc.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: 12))!
        screen.manager.clock = { noon }
        screen.manager.setQueue(QueueDefinition(name: "night", maxActive: 2, hours: OpenHours([TimeWindow(start: 22 * 60, end: 6 * 60)])))
        return screen
    }

    func testQMovesTheMarkedRowsToAQueueAndSaysAnUnknownOne() throws {
        let screen = try nightFixture()
        screen.press("Q")
        XCTAssertEqual(screen.state.prompt?.line, "Move 1 download to queue (default, night): ", "the selected row alone")
        screen.press("Esc")
        screen.press("v")
        screen.press("v")
        screen.press("Q")
        XCTAssertEqual(screen.state.prompt?.line, "Move 2 downloads to queue (default, night): ")
        screen.type("nosuch")
        screen.press("Enter")
        XCTAssertEqual(screen.state.message, "no queue \"nosuch\": the queues are default, night (tdl queue add NAME makes one)")
        XCTAssertTrue(screen.state.messageIsError)
        XCTAssertNil(screen.manager.task(ScreenFixture.url("a.bin"))?.options.queue, "nothing moved")

        screen.press("Q")
        screen.type("night")
        let commits = screen.store.commits
        XCTAssertTrue(screen.press("Enter").contains(.save), "the move is saved at once")
        XCTAssertEqual(screen.state.message, "moved 2 downloads to queue night")
        for name in ["a.bin", "b.bin"] { XCTAssertEqual(screen.manager.task(ScreenFixture.url(name))?.options.queue, "night") }
        XCTAssertNil(screen.manager.task(ScreenFixture.url("c.bin"))?.options.queue)
        screen.manager.flush()
        XCTAssertGreaterThan(screen.store.commits, commits)

        // Back to the default queue by its name.
        screen.state.rows.marked.removeAll()
        screen.state.rows.select(task: ScreenFixture.url("a.bin"))
        screen.press("Q")
        screen.type("default")
        screen.press("Enter")
        XCTAssertNil(screen.manager.task(ScreenFixture.url("a.bin"))?.options.queue)
    }

    func testTheQueueSortIsInTheCycleOnceThereAreQueues() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        for _ in 0..<4 { screen.press("s") }
        XCTAssertEqual(screen.manager.arrangement, .manual, "add time, name, size, type, then manual again")
        screen.manager.setQueue(QueueDefinition(name: "night"))
        for _ in 0..<5 { screen.press("s") }
        XCTAssertEqual(screen.manager.arrangement, .sorted(.queue, .ascending))
    }

    func testTheListSortsAndSectionsByQueueInEitherOrder() throws {
        let screen = try nightFixture()
        screen.manager.setQueue("night", forTasks: [ScreenFixture.url("a.bin")])
        // manual is not in the cycle's way: add time → name → size → type → queue.
        for _ in 0..<4 { screen.press("s") }
        XCTAssertEqual(screen.manager.arrangement, .sorted(.queue, .ascending))
        XCTAssertEqual(screen.state.message, "sorted by queue")
        XCTAssertEqual((0..<screen.manager.sectionCount).map { screen.manager.titleForHeaderInSection($0) }, ["default", "night"])
        XCTAssertEqual(screen.manager.downloadList, [[ScreenFixture.url("b.bin"), ScreenFixture.url("c.bin")], [ScreenFixture.url("a.bin")]])
        XCTAssertEqual(screen.manager.settings.arrangement, .sorted(.queue, .ascending), "kept as the other sorts are")

        screen.press("o")
        XCTAssertEqual(screen.manager.downloadList, [[ScreenFixture.url("a.bin")], [ScreenFixture.url("c.bin"), ScreenFixture.url("b.bin")]])
        XCTAssertEqual(screen.manager.settings.arrangement, .sorted(.queue, .descending))
        screen.press("S")
        XCTAssertEqual(screen.state.message, "this sort has fixed sections")

        // A move changes sections at once; an emptied section goes.
        screen.manager.setQueue(nil, forTasks: [ScreenFixture.url("a.bin")])
        XCTAssertEqual(screen.manager.downloadList, [[ScreenFixture.url("c.bin"), ScreenFixture.url("b.bin"), ScreenFixture.url("a.bin")]])
        XCTAssertEqual((0..<screen.manager.sectionCount).map { screen.manager.titleForHeaderInSection($0) }, ["default"])
        // A download added in a queue lands in its section.
        screen.manager.add(["https://example.com/files/d.bin"], options: DownloadOptions(queue: "night"))
        XCTAssertEqual((0..<screen.manager.sectionCount).map { screen.manager.titleForHeaderInSection($0) }, ["night", "default"])
    }

    func testWShowsEachQueueWithItsHoursAndWhenItOpens() throws {
        let screen = try nightFixture()
        screen.press("W")
        XCTAssertEqual(screen.state.view, .queues)
        let lines = screen.state.textLines(screen.manager)
        XCTAssertEqual(lines[0], "default   no own limit at once · no own rate cap · any time · open")
        XCTAssertEqual(lines[1], "night     2 at once · no own rate cap · 22:00-06:00 · closed, opens 22:00")
        XCTAssertTrue(lines.contains("Rate schedule: none (the rate limit holds at every hour)"), "\(lines)")
        screen.manager.setRateSchedule(RateSchedule([try RateSchedule.Entry.parse("2M 08:00-22:00")]))
        XCTAssertTrue(screen.state.textLines(screen.manager).contains("Rate schedule: 2M 08:00-22:00 · now 2.0 MB/s"),
                      "\(screen.state.textLines(screen.manager))")
        screen.manager.clock = { screen.manager.queueCalendar.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: 23))! }
        XCTAssertEqual(screen.state.textLines(screen.manager)[1], "night     2 at once · no own rate cap · 22:00-06:00 · open until Fri 06:00")
        XCTAssertEqual(screen.press("q"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .list)
    }
}
