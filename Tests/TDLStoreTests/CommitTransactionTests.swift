import Foundation
import GRDB
import TDLCore
@testable import TDLStore
import XCTest

/// A commit is one transaction, begun and ended with cached statements: what fails in it
/// leaves the file as the last commit left it, and the next commit works.
final class CommitTransactionTests: XCTestCase {
    struct Refused: Error {}

    func task(_ name: String, directory: String = "/tmp/dl") -> DownloadTask {
        var task = DownloadTask(url: "http://127.0.0.1/\(name)", fileName: name, directory: directory,
                                addTime: Date(timeIntervalSince1970: 1_700_000_000), state: .waiting)
        task.options = DownloadOptions(directory: directory)
        return task
    }

    func commit(_ tasks: [DownloadTask], to store: SQLiteSessionStore, more: ((Database) throws -> Void)? = nil) throws {
        var changes = SessionChanges()
        changes.upserted = tasks
        try store.commit(changes, with: more)
    }

    func testAFailureInsideACommitLeavesNoneOfItAndTheNextCommitWorks() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        try commit([task("a.bin")], to: store)
        XCTAssertThrowsError(try commit([task("b.bin"), task("c.bin")], to: store) { _ in throw Refused() }) { error in
            guard case StoreError.notSaved? = error as? StoreError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().tasks.keys.sorted(), ["http://127.0.0.1/a.bin"])
        try commit([task("d.bin")], to: store)
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().tasks.keys.sorted(),
                       ["http://127.0.0.1/a.bin", "http://127.0.0.1/d.bin"])
    }

    func testACommitSQLiteRefusesAtItsEndIsRolledBack() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        // A deferred foreign key fails only at COMMIT, and leaves the transaction open.
        XCTAssertThrowsError(try commit([task("b.bin")], to: store) { db in
            try db.execute(sql: """
                CREATE TEMP TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                INSERT INTO child VALUES (1);
                """)
        })
        XCTAssertTrue(try SQLiteSessionStore(path: world.dbPath).load().tasks.isEmpty)
        try commit([task("c.bin")], to: store)
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().tasks.keys.sorted(), ["http://127.0.0.1/c.bin"])
    }

    /// SQLite rolls the transaction back itself (here a trigger's ROLLBACK; a full disk or an
    /// I/O error alike): nothing of the commit is saved, whether the body passes the error on
    /// or not, and the next commit works.
    func testATransactionSQLiteRolledBackSavesNothing() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        let rollingBack = """
            CREATE TEMP TABLE refused (id INTEGER);
            CREATE TEMP TRIGGER refuse BEFORE INSERT ON refused BEGIN SELECT RAISE(ROLLBACK, 'refused'); END;
            """
        XCTAssertThrowsError(try commit([task("b.bin")], to: store) { db in
            try db.execute(sql: rollingBack)
            try db.execute(sql: "INSERT INTO refused VALUES (1)")
        })
        XCTAssertThrowsError(try commit([task("c.bin")], to: store) { db in
            try db.execute(sql: rollingBack)
            try? db.execute(sql: "INSERT INTO refused VALUES (1)")
        })
        XCTAssertTrue(try SQLiteSessionStore(path: world.dbPath).load().tasks.isEmpty)
        try commit([task("d.bin")], to: store)
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().tasks.keys.sorted(), ["http://127.0.0.1/d.bin"])
    }

    /// Tasks with other options than the one before get their own options' JSON.
    func testEachTaskKeepsItsOwnOptionsAcrossCommits() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        try commit([task("a.bin", directory: "/tmp/one")], to: store)
        try commit([task("b.bin", directory: "/tmp/two")], to: store)
        try commit([task("c.bin", directory: "/tmp/one")], to: store)
        let loaded = try SQLiteSessionStore(path: world.dbPath).load().tasks
        XCTAssertEqual(loaded["http://127.0.0.1/a.bin"]?.options.directory, "/tmp/one")
        XCTAssertEqual(loaded["http://127.0.0.1/b.bin"]?.options.directory, "/tmp/two")
        XCTAssertEqual(loaded["http://127.0.0.1/c.bin"]?.options.directory, "/tmp/one")
    }
}
