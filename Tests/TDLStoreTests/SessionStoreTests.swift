import Foundation
import GRDB
import TDLCore
@testable import TDLStore
import XCTest

final class SessionStoreTests: XCTestCase {
    var dir: String!

    override func setUp() {
        dir = NSTemporaryDirectory() + "tdl-store-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    var dbPath: String { dir + "/session.sqlite" }

    func sampleTask() -> DownloadTask {
        var task = DownloadTask(url: "http://127.0.0.1/a.tar.gz", fileName: "a.tar.gz", directory: "/tmp/dl",
                                addTime: Date(timeIntervalSince1970: 1_700_000_000.25), state: .paused)
        task.customDisplayName = "Archive"
        task.size = 402_500_000
        task.received = 41_600_000
        task.failReason = .httpStatus(503)
        task.mimeType = "application/gzip"
        task.finalURL = "http://127.0.0.1/real/a.tar.gz"
        task.etag = "\"abc\""
        task.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        task.segments = [Segment(start: 0, end: 200_000_000, done: 30_000_000), Segment(start: 200_000_000, end: 402_500_000, done: 11_600_000)]
        task.retries = 2
        task.note = "retry 2 of 3"
        task.metaInfo = ["year": "1999", "artist": "X"]
        task.deletedAt = Date(timeIntervalSince1970: 1_700_000_100)
        task.completedPath = nil
        task.options = DownloadOptions(directory: "/tmp/dl", fileName: "a.tar.gz", checksum: Checksum("sha256=" + String(repeating: "ab", count: 32)),
                                       rateLimit: 1_000_000, connections: 4)
        return task
    }

    func testEveryTaskFieldSurvivesARoundTripThroughTheFile() throws {
        let task = sampleTask()
        do {
            let store = try SQLiteSessionStore(path: dbPath)
            var changes = SessionChanges()
            changes.upserted = [task]
            try store.commit(changes)
        }
        let reopened = try SQLiteSessionStore(path: dbPath)
        let loaded = try reopened.load()
        XCTAssertEqual(loaded.tasks.count, 1)
        XCTAssertEqual(loaded.tasks[task.url], task)
    }

    /// Tasks read with the same options or the same failure share one copy of those fields;
    /// each must still read as saved and change alone.
    func testTasksWithTheSameOptionsOrFailureLoadAsSavedAndChangeAlone() throws {
        var saved: [DownloadTask] = []
        for i in 0 ..< 6 {
            var task = DownloadTask(url: "http://127.0.0.1/f\(i)", fileName: "f\(i)", directory: "/tmp/dl",
                                    addTime: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), state: i < 3 ? .failed : .paused)
            if i < 3 { task.failReason = i == 1 ? .timeout : .httpStatus(404) }
            if i >= 3 { task.options = DownloadOptions(directory: "/srv", connections: 2) }
            if i == 5 { task.note = "n" }
            saved.append(task)
        }
        do {
            var changes = SessionChanges()
            changes.upserted = saved
            try SQLiteSessionStore(path: dbPath).commit(changes)
        }
        var loaded = try SQLiteSessionStore(path: dbPath).load().tasks
        for task in saved { XCTAssertEqual(loaded[task.url], task) }
        loaded["http://127.0.0.1/f0"]!.failReason = .diskFull
        loaded["http://127.0.0.1/f3"]!.options.connections = 4
        XCTAssertEqual(loaded["http://127.0.0.1/f2"]?.failReason, .httpStatus(404))
        XCTAssertEqual(loaded["http://127.0.0.1/f4"]?.options.connections, 2)
        XCTAssertEqual(loaded["http://127.0.0.1/f5"]?.options.connections, 2)
    }

    func testSettingsAndManualLayoutRoundTrip() throws {
        var settings = SessionSettings()
        settings.arrangement = .manual
        settings.sectioning = SectioningOptions(addTime: true, fileSize: false, fileName: true)
        settings.maxDownloadCount = 7
        settings.downloadDirectory = "/srv/dl"
        settings.globalRateLimit = 123_456
        settings.onComplete = "/bin/true"
        settings.rpcListenPort = 6801
        settings.rpcListenAll = true
        settings.rpcSecret = "sesame"
        settings.rpcAllowOrigins = ["http://localhost:8080", "https://ui.example"]
        settings.rpcAllowOriginAll = true
        settings.rpcAllowedDirs = ["/srv/iso", "/srv/other folder"]
        let layout = ManualLayout(sections: [["u2", "u1"], [], ["u3"]], titles: ["Work", "Empty", "Music"])
        do {
            let store = try SQLiteSessionStore(path: dbPath)
            var changes = SessionChanges()
            changes.settings = settings
            changes.manualLayout = layout
            try store.commit(changes)
        }
        let loaded = try SQLiteSessionStore(path: dbPath).load()
        XCTAssertEqual(loaded.settings, settings)
        XCTAssertEqual(loaded.manualLayout, layout)
    }

    /// Sessions saved while manual was one of the sort types stored an order with it too: they
    /// load arranged by hand, and the other sort types as a sorted arrangement with their order.
    func testSortSettingsWrittenTheOldWayLoadAsArrangements() throws {
        let old: [(session: String, sortType: String, sortOrder: String, arrangement: Arrangement)] = [
            ("byHand", "manual", "descending", .manual),
            ("byName", "fileName", "descending", .sorted(.fileName, .descending)),
            ("byType", "fileType", "ascending", .sorted(.fileType, .ascending)),
        ]
        try SQLiteSessionStore(path: dbPath).dbQueue.write { db in
            for row in old {
                try db.execute(sql: "INSERT INTO setting (session, key, value) VALUES (?, 'sortType', ?), (?, 'sortOrder', ?)",
                               arguments: [row.session, row.sortType, row.session, row.sortOrder])
            }
        }
        for row in old {
            let store = try SQLiteSessionStore(path: dbPath, session: row.session)
            XCTAssertEqual(try store.load().settings.arrangement, row.arrangement, row.session)
            // Saved again, each reads back the same; arranged by hand, without an order.
            var changes = SessionChanges()
            changes.settings = try store.load().settings
            try store.commit(changes)
            XCTAssertEqual(try store.load().settings.arrangement, row.arrangement, row.session)
        }
        let orders = try SQLiteSessionStore(path: dbPath).dbQueue.read { db in
            try String.fetchAll(db, sql: "SELECT session FROM setting WHERE key = 'sortOrder' ORDER BY session")
        }
        XCTAssertEqual(orders, ["byName", "byType"])
    }

    func testProgressCheckpointUpdatesOnlySegments() throws {
        let store = try SQLiteSessionStore(path: dbPath)
        var task = sampleTask()
        task.deletedAt = nil
        var changes = SessionChanges()
        changes.upserted = [task]
        try store.commit(changes)
        var progress = SessionChanges()
        progress.progress[task.url] = [Segment(start: 0, end: 200_000_000, done: 200_000_000), Segment(start: 200_000_000, end: 402_500_000, done: 100)]
        try store.commit(progress)
        let loaded = try XCTUnwrap(store.load().tasks[task.url])
        XCTAssertEqual(loaded.received, 200_000_100)
        XCTAssertEqual(loaded.segments.map(\.done), [200_000_000, 100])
        XCTAssertEqual(loaded.note, task.note)
        // A restart from zero leaves one segment: the old second one must not come back.
        var restart = SessionChanges()
        restart.progress[task.url] = [Segment(start: 0, end: nil, done: 5)]
        try store.commit(restart)
        XCTAssertEqual(try store.load().tasks[task.url]?.segments, [Segment(start: 0, end: nil, done: 5)])
    }

    func testATwoThreadReadMatchesAOnePassRead() throws {
        // Two sessions interleaved in the table, so each one's row ids have gaps; an odd count.
        let work = try SQLiteSessionStore(path: dbPath, session: "work")
        let home = try SQLiteSessionStore(path: dbPath, session: "home")
        for i in 0 ..< 1001 {
            var mine = SessionChanges(), theirs = SessionChanges()
            var task = DownloadTask(url: "http://h/\(i)", fileName: "f\(i)", directory: "/tmp", state: i % 7 == 0 ? .downloading : .paused)
            if i % 5 == 0 { task.deletedAt = Date(timeIntervalSince1970: Double(i)) }
            mine.upserted = [task]
            theirs.upserted = [DownloadTask(url: "http://other/\(i)", fileName: "o\(i)", directory: "/tmp")]
            try work.commit(mine)
            try home.commit(theirs)
        }
        let onePassStore = try SQLiteSessionStore(path: dbPath, session: "work")
        onePassStore.twoReadersFrom = .max
        let onePass = try onePassStore.load()
        XCTAssertEqual(onePass.tasks.count, 1001)
        for readOnly in [false, true] {
            let store = try SQLiteSessionStore(path: dbPath, session: "work", soleWriter: !readOnly, readOnly: readOnly)
            store.twoReadersFrom = 0
            let twoThreads = try store.load()
            XCTAssertEqual(twoThreads.tasks, onePass.tasks)
            XCTAssertEqual(twoThreads.activeURLs, onePass.activeURLs, "in row order, as one pass reads them")
            XCTAssertEqual(twoThreads.activeURLs.count, 143)
            XCTAssertEqual(twoThreads.trashed.map(\.url), onePass.trashed.map(\.url))
            XCTAssertEqual(twoThreads.trashed.count, 201)
        }
    }

    /// `tdl list` reads a session another tdl may commit to meanwhile: the two threads' rows
    /// must come from one commit. Here every commit moves the task with the highest row id
    /// to below the lowest, so rows read from two different commits miss a task.
    func testATwoThreadReadWhileAnotherConnectionCommitsSeesOneCommit() throws {
        let store = try SQLiteSessionStore(path: dbPath, session: "work")
        var changes = SessionChanges()
        changes.upserted = (0 ..< 3000).map { DownloadTask(url: "http://h/\($0)", fileName: "f\($0)", directory: "/tmp") }
        try store.commit(changes)
        let writer = try DatabaseQueue(path: dbPath)
        let stop = ManagedAtomicFlag()
        let writing = Thread {
            while !stop.isSet {
                try? writer.write { db in
                    try db.execute(sql: "UPDATE task SET rowid = (SELECT min(rowid) FROM task) - 1 WHERE rowid = (SELECT max(rowid) FROM task)")
                }
            }
        }
        writing.start()
        defer { stop.set() }
        let reader = try SQLiteSessionStore(path: dbPath, session: "work", readOnly: true)
        reader.twoReadersFrom = 0
        for _ in 0 ..< 40 {
            XCTAssertEqual(try reader.load().tasks.count, 3000)
        }
        let moved = try writer.read { db in try Int.fetchOne(db, sql: "SELECT 0 - min(rowid) FROM task") ?? 0 }
        XCTAssertGreaterThan(moved, 40, "the writer committed while the reads ran")
    }

    func testSessionsAreIndependentInOneFile() throws {
        let work = try SQLiteSessionStore(path: dbPath, session: "work")
        let home = try SQLiteSessionStore(path: dbPath, session: "home")
        var changes = SessionChanges()
        changes.upserted = [DownloadTask(url: "http://h/w", fileName: "w", directory: "/tmp")]
        try work.commit(changes)
        XCTAssertEqual(try work.load().tasks.count, 1)
        XCTAssertEqual(try home.load().tasks.count, 0)
        XCTAssertEqual(try SQLiteSessionStore.sessions(path: dbPath).map(\.name), ["work"])
        try SQLiteSessionStore.destroySession("work", path: dbPath)
        XCTAssertEqual(try work.load().tasks.count, 0)
    }

    func testRemovedTaskIsGoneWithItsSegments() throws {
        let store = try SQLiteSessionStore(path: dbPath)
        var changes = SessionChanges()
        changes.upserted = [sampleTask()]
        try store.commit(changes)
        var removal = SessionChanges()
        removal.removed = [sampleTask().url]
        try store.commit(removal)
        XCTAssertTrue(try store.load().tasks.isEmpty)
    }

    func testADatabaseThatIsNotADatabaseIsMovedAsideNotDeleted() throws {
        let garbage = Data("this is not sqlite at all, just text that a user may have typed".utf8) + Data(repeating: 7, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: dbPath))
        let store = try SQLiteSessionStore(path: dbPath)
        guard case let .movedAside(original, movedTo, _)? = store.recoveryNotice else {
            return XCTFail("expected the damaged file to be moved aside")
        }
        XCTAssertEqual(original, dbPath)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: movedTo)), garbage, "the user's old file is kept byte for byte")
        XCTAssertTrue(try store.load().tasks.isEmpty, "a fresh session starts")
    }

    func testATruncatedDatabaseIsMovedAside() throws {
        try saveTasks(count: 200)
        // Fold the WAL into the main file, then cut the file in half.
        let full = try Data(contentsOf: URL(fileURLWithPath: dbPath))
        try? FileManager.default.removeItem(atPath: dbPath + "-wal")
        try? FileManager.default.removeItem(atPath: dbPath + "-shm")
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: dbPath))
        let store = try SQLiteSessionStore(path: dbPath)
        XCTAssertNotNil(store.recoveryNotice)
    }

    func testADamagedPageFoundWhileLoadingIsMovedAsideNotDeleted() throws {
        try saveTasks(count: 2000)
        // Scribble over the root page of the task table: the file keeps its size and header.
        let root = try XCTUnwrap(Int(querySQL("SELECT rootpage FROM sqlite_master WHERE name = 'task'")))
        let pageSize = try XCTUnwrap(Int(querySQL("PRAGMA page_size")))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dbPath))
        bytes.replaceSubrange((root - 1) * pageSize ..< root * pageSize, with: Data(repeating: 0xAB, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: dbPath))

        let store = try SQLiteSessionStore(path: dbPath)
        XCTAssertNil(store.recoveryNotice, "the damage is in a page that opening does not read")
        XCTAssertTrue(try store.load().tasks.isEmpty, "a fresh session starts")
        guard case let .movedAside(_, movedTo, reason)? = store.recoveryNotice else {
            return XCTFail("expected the damaged file to be moved aside")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: movedTo)), bytes, "the user's old file is kept byte for byte")
        XCTAssertTrue(reason.contains("malformed"), reason)
        // The fresh session works.
        var changes = SessionChanges()
        changes.upserted = [DownloadTask(url: "http://h/new", fileName: "new", directory: "/tmp")]
        try store.commit(changes)
        XCTAssertEqual(Array(try SQLiteSessionStore(path: dbPath).load().tasks.keys), ["http://h/new"])
    }

    /// Loading reads the task table without its key's index; a damaged index page is found
    /// by the next write that needs it. That write fails as damage, and the next open moves
    /// the file aside instead of writing on into it.
    func testADamagedIndexFoundByACommitIsMovedAsideByTheNextOpen() throws {
        try saveTasks(count: 2000)
        let root = try XCTUnwrap(Int(querySQL("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_task_1'")))
        let pageSize = try XCTUnwrap(Int(querySQL("PRAGMA page_size")))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dbPath))
        bytes.replaceSubrange((root - 1) * pageSize ..< root * pageSize, with: Data(repeating: 0xAB, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: dbPath))

        do {
            let store = try SQLiteSessionStore(path: dbPath, soleWriter: true)
            XCTAssertEqual(try store.load().tasks.count, 2000, "the tables are whole; only the index is damaged")
            var changes = SessionChanges()
            changes.upserted = [DownloadTask(url: "http://h/new", fileName: "new", directory: "/tmp")]
            XCTAssertThrowsError(try store.commit(changes)) { error in
                guard case let StoreError.damagedWhileWriting(path, reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, dbPath)
                XCTAssertTrue(reason.contains("malformed"), reason)
            }
        }
        let next = try SQLiteSessionStore(path: dbPath)
        guard case let .movedAside(original, movedTo, _)? = next.recoveryNotice else {
            return XCTFail("the next open must move the damaged file aside")
        }
        XCTAssertEqual(original, dbPath)
        XCTAssertTrue(FileManager.default.fileExists(atPath: movedTo))
        XCTAssertTrue(try next.load().tasks.isEmpty, "a fresh session starts")
    }

    /// A command that only reads reports damage and leaves the file where it is.
    func testAReadOnlyStoreReportsDamageAndMovesNothing() throws {
        let garbage = Data("not a database".utf8) + Data(repeating: 7, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: dbPath))
        XCTAssertThrowsError(try SQLiteSessionStore(path: dbPath, readOnly: true)) { error in
            guard case let StoreError.damaged(path, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, dbPath)
            XCTAssertEqual(reason, "not a database")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["session.sqlite"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dbPath)), garbage)
    }

    /// Another program holding a write for longer than the busy timeout is not damage.
    func testABusyWriterIsReportedAndNothingIsMoved() throws {
        try saveTasks(count: 3)
        let other = try DatabaseQueue(path: dbPath)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            XCTAssertThrowsError(try SQLiteSessionStore(path: dbPath)) { error in
                guard case let StoreError.unusable(path, reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, dbPath)
                XCTAssertEqual(reason, "database is locked")
            }
            try db.execute(sql: "ROLLBACK")
        }
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: dir).contains { $0.contains("damaged") })
        XCTAssertEqual(try SQLiteSessionStore(path: dbPath).load().tasks.count, 3)
    }

    func testANewerSchemaIsRefusedAndLeftUntouched() throws {
        do {
            let store = try SQLiteSessionStore(path: dbPath)
            var changes = SessionChanges()
            changes.upserted = [DownloadTask(url: "http://h/x", fileName: "x", directory: "/tmp")]
            try store.commit(changes)
        }
        // A later tdl would have recorded a migration this one does not know.
        try runSQL("INSERT INTO grdb_migrations (identifier) VALUES ('v999-from-the-future')")
        let before = try Data(contentsOf: URL(fileURLWithPath: dbPath))
        XCTAssertThrowsError(try SQLiteSessionStore(path: dbPath)) { error in
            guard case StoreError.newerSchema = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dbPath)), before)
    }

    /// The session's one writer knows how many segment rows each task has and skips the
    /// statement that drops extra ones when there can be none; when a task has fewer than
    /// before, the old ones must still go, also for a task read from the file.
    func testTheSoleWriterDropsSegmentRowsBeyondANewCount() throws {
        func segments(_ count: Int) -> [Segment] {
            (0 ..< count).map { Segment(start: Int64($0) * 100, end: Int64($0 + 1) * 100, done: 10) }
        }
        var task = sampleTask()
        task.deletedAt = nil
        task.segments = segments(3)
        let writer = try SQLiteSessionStore(path: dbPath, soleWriter: true)
        _ = try writer.load()
        var changes = SessionChanges()
        changes.upserted = [task]
        try writer.commit(changes)
        var shrink = SessionChanges()
        shrink.progress[task.url] = segments(2)
        try writer.commit(shrink)
        XCTAssertEqual(try writer.load().tasks[task.url]?.segments, segments(2))
        try writer.dbQueue.close()

        let next = try SQLiteSessionStore(path: dbPath, soleWriter: true)
        XCTAssertEqual(try next.load().tasks[task.url]?.segments, segments(2))
        var grow = SessionChanges()
        grow.progress[task.url] = segments(4)
        try next.commit(grow)
        var shrinkAgain = SessionChanges()
        shrinkAgain.progress[task.url] = segments(3)
        try next.commit(shrinkAgain)
        XCTAssertEqual(try SQLiteSessionStore(path: dbPath).load().tasks[task.url]?.segments, segments(3))
    }

    /// A new file gets its schema without syncs; what follows is synced as always.
    func testANewFileEndsInWALModeWithNormalSyncs() throws {
        for _ in 0 ..< 2 {  // created, then opened again
            let store = try SQLiteSessionStore(path: dbPath)
            let (synchronous, journal) = try store.dbQueue.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
            }
            XCTAssertEqual(synchronous, 1, "NORMAL")
            XCTAssertEqual(journal, "wal")
            try store.dbQueue.close()
        }
    }

    func testTheFirstSchemaOpensAndMigrates() throws {
        // A copy of a database written with the first schema (v1), kept in the tests.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/schema-v1.sql")
        let sql = try String(contentsOf: fixture, encoding: .utf8)
        try runSQL(sql)
        let loaded = try SQLiteSessionStore(path: dbPath).load()
        XCTAssertEqual(Array(loaded.tasks.keys), ["http://127.0.0.1/old.iso"])
        XCTAssertEqual(loaded.tasks.values.first?.segments.first?.done, 1000)
        XCTAssertEqual(loaded.settings.arrangement, .sorted(.fileSize, .ascending))
    }

    func testTheFirstSchemasOptionColumnsMoveIntoTheOptions() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/schema-v1.sql")
        try runSQL(try String(contentsOf: fixture, encoding: .utf8))
        let sum = "sha1=" + String(repeating: "0f", count: 20)
        // As the first schema kept them: one column per option.
        try runSQL("""
            INSERT INTO task (session, url, fileName, userChoseName, directory, addTime, state, checksum, connections, rateLimit)
                VALUES ('default', 'http://127.0.0.1/named.iso', 'mine.iso', 1, '/tmp/fx/dl', 1795258547, 'paused', '\(sum)', 3, 4096);
            INSERT INTO task (session, url, fileName, directory, addTime, state, rateLimit)
                VALUES ('default', 'http://127.0.0.1/limited.iso', 'limited.iso', '/tmp/fx/dl', 1795258548, 'waiting', 100);
            """)
        let loaded = try SQLiteSessionStore(path: dbPath).load()
        XCTAssertEqual(loaded.tasks["http://127.0.0.1/named.iso"]?.options,
                       DownloadOptions(fileName: "mine.iso", checksum: Checksum(sum), rateLimit: 4096, connections: 3))
        XCTAssertEqual(loaded.tasks["http://127.0.0.1/limited.iso"]?.options, DownloadOptions(rateLimit: 100))
        XCTAssertEqual(loaded.tasks["http://127.0.0.1/old.iso"]?.options, DownloadOptions())
        XCTAssertEqual(try querySQL("SELECT count(*) FROM pragma_table_info('task') WHERE name IN ('checksum', 'userChoseName')"), "0")
    }

    func testOptionsThatCannotBeReadCostThatTasksOptionsNotTheSession() throws {
        try saveTasks(count: 2)
        try runSQL("UPDATE task SET options = '{\"checksum\": \"sha256=nothex\"}' WHERE url = 'http://h/0'")
        let loaded = try SQLiteSessionStore(path: dbPath).load()
        XCTAssertEqual(loaded.tasks.count, 2)
        XCTAssertEqual(loaded.tasks["http://h/0"]?.options, DownloadOptions())
        XCTAssertEqual(loaded.tasks["http://h/0"]?.note, "its saved options could not be read; they were dropped")
    }
}
