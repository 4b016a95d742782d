import Foundation
import XCTest
@testable import TDLCore

/// Time windows, days of the week and the moments they open and close, in a calendar of a
/// fixed time zone (Berlin: its clocks change on 2026-03-29 and 2026-10-25).
final class TimeWindowTests: XCTestCase {
    let berlin: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    /// A wall-clock moment in Berlin.
    func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        berlin.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    func testDaysAreReadAsNamesListsAndRanges() throws {
        XCTAssertEqual(try Weekdays.parse("mon,tue"), Weekdays([2, 3]))
        XCTAssertEqual(try Weekdays.parse("Mon-Fri"), Weekdays([2, 3, 4, 5, 6]))
        XCTAssertEqual(try Weekdays.parse("fri-mon"), Weekdays([6, 7, 1, 2]), "a range wraps over the weekend")
        XCTAssertEqual(try Weekdays.parse("saturday, sun"), Weekdays([7, 1]))
        XCTAssertEqual(try Weekdays.parse("weekdays"), try Weekdays.parse("mon-fri"))
        XCTAssertEqual(try Weekdays.parse("all"), .all)
        XCTAssertEqual(try Weekdays.parse("mon-fri").description, "mon-fri")
        XCTAssertEqual(try Weekdays.parse("sat,mon").description, "mon,sat")
        for bad in ["", "funday", "m", "mon-", "mon-tue-wed", "mon,,tue"] {
            XCTAssertThrowsError(try Weekdays.parse(bad), bad)
        }
    }

    func testWindowsAreReadAsHoursAndMinutes() throws {
        let night = try TimeWindow.parse("22:00-06:00")
        XCTAssertEqual([night.start, night.end], [22 * 60, 6 * 60])
        XCTAssertTrue(night.crossesMidnight)
        XCTAssertEqual(try TimeWindow.parse("00:00-24:00").end, 1440)
        XCTAssertEqual(try TimeWindow.parse("23:00-00:00").end, 1440, "closing at midnight is the end of the day")
        XCTAssertEqual(try TimeWindow.parse("8:30-9:45").hours, "08:30-09:45")
        for bad in ["22:00", "25:00-01:00", "10:60-11:00", "10:00-10:00", "00:00-00:00", "ab:cd-01:00", "24:00-01:00", "1:2-3:4"] {
            XCTAssertThrowsError(try TimeWindow.parse(bad), bad) { error in
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
    }

    func testAWindowIsOpenFromItsStartToItsEndOnItsDays() throws {
        let hours = OpenHours([try TimeWindow.parse("08:00-22:00", days: try Weekdays.parse("mon-fri"))])
        // 2026-11-23 is a Monday.
        XCTAssertFalse(hours.isOpen(at: at(2026, 11, 23, 7, 59), calendar: berlin))
        XCTAssertTrue(hours.isOpen(at: at(2026, 11, 23, 8, 0), calendar: berlin))
        XCTAssertTrue(hours.isOpen(at: at(2026, 11, 23, 21, 59), calendar: berlin))
        XCTAssertFalse(hours.isOpen(at: at(2026, 11, 23, 22, 0), calendar: berlin), "closed at its last minute")
        XCTAssertFalse(hours.isOpen(at: at(2026, 11, 28, 12), calendar: berlin), "Saturday")
        XCTAssertTrue(OpenHours.always.isOpen(at: at(2026, 11, 28, 3), calendar: berlin))
    }

    func testAWindowCrossingMidnightBelongsToTheDayItOpens() throws {
        let hours = OpenHours([try TimeWindow.parse("22:00-06:00", days: try Weekdays.parse("fri"))])
        // 2026-11-27 is a Friday.
        XCTAssertTrue(hours.isOpen(at: at(2026, 11, 27, 23), calendar: berlin))
        XCTAssertTrue(hours.isOpen(at: at(2026, 11, 28, 5, 59), calendar: berlin), "Saturday morning is Friday night's")
        XCTAssertFalse(hours.isOpen(at: at(2026, 11, 28, 23), calendar: berlin), "not Saturday night")
        XCTAssertFalse(hours.isOpen(at: at(2026, 11, 27, 5), calendar: berlin), "not Friday morning (Thursday's night)")
        XCTAssertEqual(hours.nextChange(after: at(2026, 11, 27, 23), calendar: berlin), at(2026, 11, 28, 6))
        XCTAssertEqual(hours.nextOpening(after: at(2026, 11, 28, 6), calendar: berlin), at(2026, 12, 4, 22), "next Friday")
    }

    func testTheNextOpeningAndClosing() throws {
        let hours = OpenHours([try TimeWindow.parse("01:00-05:00"), try TimeWindow.parse("04:00-07:00"),
                               try TimeWindow.parse("20:00-21:00", days: try Weekdays.parse("sun"))])
        XCTAssertEqual(hours.nextChange(after: at(2026, 11, 23, 2), calendar: berlin), at(2026, 11, 23, 7),
                       "overlapping windows are one stretch")
        XCTAssertEqual(hours.nextOpening(after: at(2026, 11, 23, 7), calendar: berlin), at(2026, 11, 24, 1))
        XCTAssertNil(hours.nextOpening(after: at(2026, 11, 23, 2), calendar: berlin), "open now")
        XCTAssertEqual(hours.nextOpening(after: at(2026, 11, 29, 10), calendar: berlin), at(2026, 11, 29, 20))
        XCTAssertNil(OpenHours([try TimeWindow.parse("00:00-24:00")]).nextChange(after: at(2026, 11, 23, 2), calendar: berlin),
                     "open all week: it never closes")
        XCTAssertNil(OpenHours.always.nextChange(after: at(2026, 11, 23, 2), calendar: berlin))
    }

    /// The clocks go from 02:00 to 03:00 on 2026-03-29 and back from 03:00 to 02:00 on
    /// 2026-10-25: windows keep their wall-clock hours, and one in the skipped hour opens
    /// when it ends.
    func testWindowsKeepTheirWallClockHoursWhenTheClocksChange() throws {
        let morning = OpenHours([try TimeWindow.parse("08:00-09:00")])
        XCTAssertEqual(morning.nextOpening(after: at(2026, 3, 28, 12), calendar: berlin), at(2026, 3, 29, 8))
        XCTAssertEqual(berlin.component(.hour, from: morning.nextOpening(after: at(2026, 3, 28, 12), calendar: berlin)!), 8)
        XCTAssertEqual(morning.nextChange(after: at(2026, 3, 29, 8, 30), calendar: berlin), at(2026, 3, 29, 9))
        XCTAssertEqual(morning.nextOpening(after: at(2026, 10, 24, 12), calendar: berlin), at(2026, 10, 25, 8))
        // Midnight to 08:00 is nine hours long the night the clocks go back, seven in spring.
        let night = OpenHours([try TimeWindow.parse("00:00-08:00")])
        XCTAssertEqual(night.nextChange(after: at(2026, 10, 25, 1), calendar: berlin)!
            .timeIntervalSince(berlin.startOfDay(for: at(2026, 10, 25, 1))), 9 * 3600)
        XCTAssertEqual(night.nextChange(after: at(2026, 3, 29, 1), calendar: berlin)!
            .timeIntervalSince(berlin.startOfDay(for: at(2026, 3, 29, 1))), 7 * 3600)
        let skipped = OpenHours([try TimeWindow.parse("02:30-04:00")])
        let opens = skipped.nextOpening(after: at(2026, 3, 28, 12), calendar: berlin)!
        XCTAssertEqual(opens, at(2026, 3, 29, 3), "02:30 does not exist that night: it opens as the clocks reach 03:00")
        XCTAssertTrue(skipped.isOpen(at: at(2026, 3, 29, 3, 30), calendar: berlin))
    }

    func testARateScheduleCapsInItsWindowsAndLeavesTheUsualCapOutside() throws {
        let schedule = RateSchedule([try RateSchedule.Entry.parse("2M mon-fri 08:00-22:00"),
                                     try RateSchedule.Entry.parse("0 sat 10:00-12:00")])
        XCTAssertEqual(schedule.cap(at: at(2026, 11, 23, 9), calendar: berlin), .some(2_000_000))
        XCTAssertEqual(schedule.cap(at: at(2026, 11, 28, 11), calendar: berlin), .some(nil), "0: no cap in that window")
        XCTAssertTrue(schedule.cap(at: at(2026, 11, 23, 23), calendar: berlin) == nil, "outside: the usual cap")
        XCTAssertEqual(schedule.nextChange(after: at(2026, 11, 23, 9), calendar: berlin), at(2026, 11, 23, 22))
        XCTAssertEqual(schedule.entries[0].description, "2M mon-fri 08:00-22:00")
        XCTAssertEqual(try RateSchedule.Entry.parse(schedule.entries[0].description), schedule.entries[0])
        for bad in ["2M", "fast 08:00-09:00", "2M mon-fri 08:00", "2M mon fri 08:00-09:00"] {
            XCTAssertThrowsError(try RateSchedule.Entry.parse(bad), bad)
        }
    }

    func testQueueNamesAndDefinitions() throws {
        XCTAssertNil(QueueDefinition.problem(withName: "night-1.x_y"))
        for bad in ["", "-a", ".a", "a b", "a/b", "ä", String(repeating: "a", count: 41)] {
            XCTAssertNotNil(QueueDefinition.problem(withName: bad), bad)
        }
        var list = QueueList([QueueDefinition(name: "night", maxActive: 2)])
        XCTAssertNil(list.definition(for: nil), "an undefined default queue runs as always")
        XCTAssertEqual(list.definition(for: "night")?.maxActive, 2)
        XCTAssertNil(list.definition(for: "gone"), "an undefined queue is the default one")
        list.set(QueueDefinition(name: QueueDefinition.defaultName, maxActive: 1))
        XCTAssertEqual(list.definition(for: "gone")?.name, "default")
        list.set(QueueDefinition(name: "night", maxActive: 4))
        XCTAssertEqual(list.names, ["night", "default"], "a replaced queue keeps its place")
        XCTAssertEqual(QueueDefinition(name: "q", maxActive: -3, rateLimit: 0).maxActive, 0)
        XCTAssertNil(QueueDefinition(name: "q", rateLimit: 0).rateLimit)
    }

    func testCategoriesByExtension() {
        var categories = Categories.defaults
        XCTAssertEqual(categories.category(ofFileName: "film.MKV")?.name, "video")
        XCTAssertEqual(categories.category(ofFileName: "src.tar.gz")?.name, "archives")
        XCTAssertNil(categories.category(ofFileName: ".bashrc"))
        XCTAssertNil(categories.category(ofFileName: "README"))
        XCTAssertNil(categories.directory(forFileName: "film.mkv"), "off until a folder is set")
        categories.setDirectory("/srv/video", of: "video")
        XCTAssertEqual(categories.directory(forFileName: "film.mkv"), "/srv/video")
        categories.setExtensions(["iso", ".img"], of: "disks")
        XCTAssertEqual(categories.category(ofFileName: "a.img")?.name, "disks")
        XCTAssertEqual(categories.category(ofFileName: "a.iso")?.name, "archives", "the first category naming it wins")
    }
}
