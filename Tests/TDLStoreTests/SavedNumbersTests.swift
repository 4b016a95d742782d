import Foundation
import GRDB
import TDLCore
@testable import TDLStore
import XCTest

/// Numbers in a session file changed behind tdl's back load inside the ranges tdl writes:
/// the download loses its progress or an option, and nothing traps later.
final class SavedNumbersTests: XCTestCase {
    var dir = ""
    var dbPath: String { dir + "/session.sqlite" }

    override func setUp() {
        dir = NSTemporaryDirectory() + "tdl-saved-numbers-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testNumbersOutOfRangeLoadAsDefaults() throws {
        var task = DownloadTask(url: "https://a.example/f", fileName: "f", directory: "/tmp", addTime: Date(timeIntervalSince1970: 1), state: .paused)
        task.size = 1000
        task.segments = [Segment(start: 0, end: 1000, done: 10)]
        task.options = DownloadOptions(rateLimit: 5, connections: 4)
        do {
            let store = try SQLiteSessionStore(path: dbPath)
            var changes = SessionChanges()
            changes.upserted = [task]
            try store.commit(changes)
        }
        let queue = try DatabaseQueue(path: dbPath)
        try queue.write { db in
            try db.execute(sql: "UPDATE task SET size = -5, received = 9223372036854775807, options = json_set(options, '$.connections', 99999999999, '$.rateLimit', 9223372036854775807)")
            try db.execute(sql: "UPDATE segment SET start = -9223372036854775808")
            for (key, value) in [("maxDownloadCount", "99999999999"), ("connectionsPerDownload", "-1"), ("globalRateLimit", "9223372036854775807"),
                                 ("rpcListenPort", "99999"), ("maxRetries", "-9223372036854775808")] {
                try db.execute(sql: "INSERT OR REPLACE INTO setting (session, key, value) VALUES ('default', ?, ?)", arguments: [key, value])
            }
        }
        try queue.close()
        let loaded = try SQLiteSessionStore(path: dbPath).load()
        let back = try XCTUnwrap(loaded.tasks["https://a.example/f"])
        XCTAssertNil(back.size)
        XCTAssertEqual(back.segments, [], "progress outside the file tdl could have written is dropped")
        XCTAssertNil(back.options.connections)
        XCTAssertNil(back.options.rateLimit)
        let defaults = SessionSettings()
        XCTAssertEqual(loaded.settings.maxDownloadCount, defaults.maxDownloadCount)
        XCTAssertEqual(loaded.settings.connectionsPerDownload, defaults.connectionsPerDownload)
        XCTAssertNil(loaded.settings.globalRateLimit)
        XCTAssertEqual(loaded.settings.rpcListenPort, defaults.rpcListenPort)
        XCTAssertEqual(loaded.settings.maxRetries, defaults.maxRetries)
    }
}
