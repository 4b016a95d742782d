import Foundation
import GRDB
import TDLCore
@testable import TDLStore
import XCTest

/// A manager over `TaskRowStore` holds the named tasks alone and answers as over the whole session.
final class TaskRowStoreTests: XCTestCase {
    var dir: String!

    override func setUp() {
        dir = NSTemporaryDirectory() + "tdl-rows-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    var dbPath: String { dir + "/session.sqlite" }
    var downloads: String { dir + "/downloads" }

    /// 200 waiting tasks, and a finished one at owned.bin whose file is on disk.
    func makeSession(arrangement: Arrangement = .sorted(.addTime, .ascending)) throws {
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let manager = DownloadManager(defaultDirectory: downloads, store: try SQLiteSessionStore(path: dbPath, soleWriter: true))
        try manager.load(restoring: false)
        manager.add((0..<200).map { "http://h/\($0).bin" })
        manager.add(["http://h/owned.bin"])
        manager.arrange(arrangement)
        manager.flush()
        XCTAssertTrue(FileManager.default.createFile(atPath: downloads + "/owned.bin", contents: Data(count: 10)))
        try DatabaseQueue(path: dbPath).write { db in
            try db.execute(sql: """
                UPDATE task SET state = 'finished', size = 10, finalURL = url, completedPath = ? WHERE url = 'http://h/owned.bin'
                """, arguments: [downloads + "/owned.bin"])
        }
    }

    func rowManager(_ urls: [String]) throws -> DownloadManager {
        let store = try XCTUnwrap(TaskRowStore(try SQLiteSessionStore(path: dbPath, soleWriter: true), urls: urls))
        let manager = DownloadManager(defaultDirectory: downloads, store: store)
        try manager.load(restoring: false)
        return manager
    }

    func testOnlyTheNamedTasksAreLoaded() throws {
        try makeSession()
        let manager = try rowManager(["http://h/7.bin", "http://h/missing.bin"])
        XCTAssertEqual(manager.taskCount, 1)
        XCTAssertEqual(manager.pauseTasks(["http://h/7.bin"]), ["http://h/7.bin"])
        manager.flush()
        let whole = DownloadManager(defaultDirectory: downloads, store: try SQLiteSessionStore(path: dbPath))
        try whole.load(restoring: false)
        XCTAssertEqual(whole.taskCount, 201)
        XCTAssertEqual(whole.state(of: "http://h/7.bin"), .paused)
        XCTAssertEqual(whole.state(of: "http://h/8.bin"), .waiting)
    }

    /// The task that owns owned.bin is not loaded: a rename to its name is still refused.
    func testANameAnUnloadedTaskOwnsIsTaken() throws {
        try makeSession()
        let manager = try rowManager(["http://h/7.bin"])
        let result = manager.add([DownloadRequest(url: "http://h/7.bin", options: DownloadOptions(fileName: "owned.bin"))])
        XCTAssertEqual(result.notApplied.map(\.reason), ["cannot rename to owned.bin: a file of that name exists"])
        let free = manager.add([DownloadRequest(url: "http://h/7.bin", options: DownloadOptions(fileName: "free.bin"))])
        XCTAssertEqual(free.notApplied.count, 0)
        XCTAssertEqual(manager.task("http://h/7.bin")?.fileName, "free.bin")
    }

    /// A finished file another, unloaded task also finished at stays when this one restarts.
    func testAFileAnUnloadedTaskClaimsIsKept() throws {
        try makeSession()
        try DatabaseQueue(path: dbPath).write { db in
            try db.execute(sql: """
                UPDATE task SET state = 'finished', size = 10, finalURL = url, fileName = 'owned.bin', completedPath = ?
                WHERE url = 'http://h/9.bin'
                """, arguments: [downloads + "/owned.bin"])
        }
        let manager = try rowManager(["http://h/owned.bin"])
        XCTAssertEqual(manager.restartTasks(["http://h/owned.bin"]), ["http://h/owned.bin"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads + "/owned.bin"), "9.bin's file too")
        let alone = try rowManager(["http://h/9.bin"])
        XCTAssertEqual(alone.restartTasks(["http://h/9.bin"]), ["http://h/9.bin"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads + "/owned.bin"), "nobody else names it now")
    }

    /// Arranged by hand: added and restored tasks go to the top of the first section without
    /// renumbering the other rows; a trashed one leaves the layout.
    func testArrangedByHandOnlyTheChangedLayoutRowsAreWritten() throws {
        try makeSession(arrangement: .manual)
        let manager = try rowManager(["http://h/new.bin", "http://h/5.bin"])
        manager.deleteTasks(["http://h/5.bin"])
        manager.add(["http://h/new.bin"])
        manager.flush()
        let rows = try DatabaseQueue(path: dbPath).read { db in
            try Row.fetchAll(db, sql: "SELECT url, row FROM layoutRow WHERE section = 0 ORDER BY row")
                .map { (url: $0["url"] as String, row: $0["row"] as Int) }
        }
        XCTAssertEqual(rows.count, 201)
        XCTAssertEqual(rows.first?.url, "http://h/new.bin")
        XCTAssertEqual(rows.first?.row, -1)
        XCTAssertEqual(rows[1].row, 0, "the others keep their numbers")
        XCTAssertFalse(rows.contains { $0.url == "http://h/5.bin" })
        let whole = DownloadManager(defaultDirectory: downloads, store: try SQLiteSessionStore(path: dbPath))
        try whole.load(restoring: false)
        XCTAssertEqual(whole.downloadList[0].first, "http://h/new.bin")
        XCTAssertEqual(whole.downloadList[0].count, 201)
    }

    /// Arranged by hand with no saved layout, a load places every task: the whole session is needed.
    func testAListByHandWithoutALayoutNeedsTheWholeSession() throws {
        try makeSession(arrangement: .manual)
        try DatabaseQueue(path: dbPath).write { db in
            try db.execute(sql: "DELETE FROM layoutSection; DELETE FROM layoutRow")
        }
        XCTAssertNil(TaskRowStore(try SQLiteSessionStore(path: dbPath), urls: ["http://h/1.bin"]))
    }

    /// A session written before schema v3 gets the indexes the row lookups use, and keeps its rows.
    func testMigrationAddsTheRowLookupIndexes() throws {
        let queue = try DatabaseQueue(path: dbPath)
        try Schema.migrator.migrate(queue, upTo: "v2: options")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO task (session, url, fileName, directory, addTime, state) VALUES ('default', 'http://h/a', 'a', '/tmp', 0, 'paused');
                INSERT INTO layoutSection (session, position, title) VALUES ('default', 0, 'Downloads');
                INSERT INTO layoutRow (session, url, section, row) VALUES ('default', 'http://h/a', 0, 0);
                """)
        }
        try queue.close()
        let store = try SQLiteSessionStore(path: dbPath)
        XCTAssertEqual(try store.load().tasks.keys.sorted(), ["http://h/a"])
        try store.dbQueue.read { db in
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            XCTAssertEqual(indexes, ["layoutRow_place", "task_completedPath", "task_fileName"])
            func plan(_ sql: String) throws -> String {
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ")
            }
            XCTAssertTrue(try plan("SELECT url FROM task WHERE session = 'default' AND fileName IN ('a', 'b')").contains("task_fileName"))
            XCTAssertTrue(try plan("SELECT url FROM task WHERE session = 'default' AND completedPath = '/tmp/a'").contains("task_completedPath"))
            XCTAssertTrue(try plan("SELECT min(row) FROM layoutRow WHERE session = 'default' AND section = 0").contains("layoutRow_place"))
        }
    }
}
