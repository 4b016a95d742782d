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
}
