import Foundation
import GRDB
@testable import TDLStore
import XCTest

/// A new session file gets its schema in one commit (`Schema.createIfEmpty`); it must be the
/// file the migrations make, so that a later tdl's migrator takes it up as its own.
final class SchemaCreationTests: XCTestCase {
    var dir: String!

    override func setUp() {
        dir = NSTemporaryDirectory() + "tdl-schema-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Every table and index with its SQL, and the migrations recorded.
    func shape(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name")
                + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }

    func testOneCommitMakesTheFileTheMigrationsMake() throws {
        let migrated = try DatabaseQueue(path: dir + "/migrated.sqlite")
        try Schema.migrator.migrate(migrated)
        let created = try DatabaseQueue(path: dir + "/created.sqlite")
        XCTAssertTrue(try created.writeWithoutTransaction { try Schema.createIfEmpty($0) })
        XCTAssertEqual(try shape(created), try shape(migrated))
        XCTAssertTrue(try created.read { try Schema.migrator.hasCompletedMigrations($0) })
    }

    func testAFileWithTablesIsLeftToTheMigrator() throws {
        let queue = try DatabaseQueue(path: dir + "/old.sqlite")
        try Schema.migrator.migrate(queue, upTo: "v2: options")
        let before = try shape(queue)
        XCTAssertFalse(try queue.writeWithoutTransaction { try Schema.createIfEmpty($0) })
        XCTAssertEqual(try shape(queue), before)
    }

    func testANewSessionFileOpensWithTheWholeSchema() throws {
        let path = dir + "/session.sqlite"
        let queue = try SQLiteSessionStore.open(path)
        XCTAssertTrue(try queue.read { try Schema.migrator.hasCompletedMigrations($0) })
        XCTAssertEqual(try queue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 1, "NORMAL once created")
        try queue.close()
        // Opened again, it is an existing file the migrator finds complete.
        let again = try SQLiteSessionStore.open(path)
        let reference = try DatabaseQueue(path: dir + "/reference.sqlite")
        try Schema.migrator.migrate(reference)
        XCTAssertEqual(try shape(again), try shape(reference))
    }
}
