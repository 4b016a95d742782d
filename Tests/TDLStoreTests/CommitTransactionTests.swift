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

    func testAStatementSQLiteRefusesRollsTheCommitBack() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        XCTAssertThrowsError(try commit([task("b.bin")], to: store) { db in try db.execute(sql: "INSERT INTO nosuchtable VALUES (1)") })
        XCTAssertTrue(try SQLiteSessionStore(path: world.dbPath).load().tasks.isEmpty)
        try commit([task("b.bin")], to: store)
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().tasks.keys.sorted(), ["http://127.0.0.1/b.bin"])
    }

    /// The options' JSON is kept from one commit to the next: a task with other options gets
    /// its own, and the first options come back after them.
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
