import Foundation
import TDLCore
@testable import TDLStore
import XCTest

/// What the session tests do to the file around the store: tasks written in one go, and SQL
/// through the sqlite3 shell (another program, as a user's would be).
extension SessionStoreTests {
    /// Writes `count` plain tasks to the file and closes it (the WAL is folded into the file).
    func saveTasks(count: Int) throws {
        let store = try SQLiteSessionStore(path: dbPath)
        var changes = SessionChanges()
        changes.upserted = (0..<count).map { DownloadTask(url: "http://h/\($0)", fileName: "\($0)", directory: "/tmp") }
        try store.commit(changes)
    }

    /// What the sqlite3 shell prints for one statement, without the newline.
    func querySQL(_ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [dbPath, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func runSQL(_ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [dbPath]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}

/// A flag one thread sets and another reads, guarded by its lock.
final class ManagedAtomicFlag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
