import Foundation
import GRDB
import TDLCore
@testable import TDLStore
import XCTest

/// Queues, the rate schedule and each download's queue, through a real session file.
final class QueuePersistenceTests: XCTestCase {
    var dir: String!

    override func setUp() {
        dir = NSTemporaryDirectory() + "tdl-queues-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    var dbPath: String { dir + "/session.sqlite" }

    func manager() throws -> DownloadManager {
        let manager = DownloadManager(identifier: "default", defaultDirectory: dir, store: try SQLiteSessionStore(path: dbPath))
        try manager.load()
        return manager
    }

    func testQueuesTheScheduleAndADownloadsQueueSurviveASaveAndAReload() throws {
        let night = QueueDefinition(name: "night", maxActive: 2, rateLimit: 500_000,
                                    hours: OpenHours([try TimeWindow.parse("22:00-06:00", days: try Weekdays.parse("mon-fri"))]))
        let schedule = RateSchedule([try RateSchedule.Entry.parse("2M mon-fri 08:00-22:00")])
        do {
            let first = try manager()
            first.setQueue(night)
            first.setQueue(QueueDefinition(name: "one", maxActive: 1))
            first.setRateSchedule(schedule)
            first.add(["http://127.0.0.1/a.iso"], options: DownloadOptions(queue: "night"))
            first.add(["http://127.0.0.1/b.iso"])
            first.flush()
            XCTAssertNil(first.lastError)
        }
        let second = try manager()
        XCTAssertEqual(second.settings.queues, QueueList([night, QueueDefinition(name: "one", maxActive: 1)]))
        XCTAssertEqual(second.settings.rateSchedule, schedule)
        XCTAssertEqual(second.task("http://127.0.0.1/a.iso")?.options.queue, "night")
        XCTAssertNil(second.task("http://127.0.0.1/b.iso")?.options.queue)

        second.removeQueue("night")
        second.removeQueue("one")
        second.setRateSchedule(RateSchedule())
        second.flush()
        let third = try manager()
        XCTAssertTrue(third.settings.queues.isEmpty)
        XCTAssertTrue(third.settings.rateSchedule.isEmpty)
        let keys = try DatabaseQueue(path: dbPath).read {
            try String.fetchAll($0, sql: "SELECT key FROM setting WHERE key IN ('queues', 'rateSchedule')")
        }
        XCTAssertEqual(keys, [], "nothing defined: no rows")
    }

    /// Rows written before queues existed have no `queue` in their options; a queues value
    /// damaged by hand falls back to no queues, as other settings fall back to their defaults.
    func testOldOptionsAndDamagedQueueSettingsStillRead() throws {
        let old = try JSONDecoder().decode(DownloadOptions.self, from: Data(#"{"connections":2,"rateLimit":100}"#.utf8))
        XCTAssertEqual(old, DownloadOptions(rateLimit: 100, connections: 2))
        XCTAssertNil(old.queue)
        do {
            let first = try manager()
            first.setQueue(QueueDefinition(name: "night", maxActive: 1))
            first.flush()
        }
        let queue = try DatabaseQueue(path: dbPath)
        try queue.write {
            try $0.execute(sql: "UPDATE setting SET value = '{\"definitions\": 7}' WHERE key = 'queues'")
            try $0.execute(sql: "INSERT OR REPLACE INTO setting (session, key, value) VALUES ('default', 'rateSchedule', 'not json')")
        }
        let second = try manager()
        XCTAssertTrue(second.settings.queues.isEmpty)
        XCTAssertTrue(second.settings.rateSchedule.isEmpty)
        XCTAssertEqual(second.settings.maxDownloadCount, SessionSettings().maxDownloadCount, "the other settings as they were")
    }
}
