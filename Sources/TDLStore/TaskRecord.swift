import Foundation
import GRDB
import GRDBSQLite
import TDLCore

/// Maps a `DownloadTask` to a row of the `task` table and back.
enum TaskRecord {
    /// The columns `tasks(session:db:)` reads, in order.
    static let selectColumns = """
        url, fileName, directory, addTime, state, customName, mimeType, userChoseName, size, received, failReason,
        finalURL, etag, lastModified, checksum, retries, note, metaInfo, deletedAt, completedPath, connections, rateLimit
        """

    /// Every task of a session. Reads columns through SQLite's own calls: decoding 100,000
    /// rows through generic row values took most of a launch's time.
    static func tasks(session: String, db: Database) throws -> [DownloadTask] {
        var tasks: [DownloadTask] = []
        tasks.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM task WHERE session = ?", arguments: [session]) ?? 0)
        // NOT INDEXED: one pass over the table beats a primary-key lookup per row (5x here).
        let statement = try db.makeStatement(sql: "SELECT \(selectColumns) FROM task NOT INDEXED WHERE session = ?")
        try statement.setArguments([session])
        let s = statement.sqliteStatement
        func text(_ i: Int32) -> String? {
            guard let bytes = sqlite3_column_text(s, i) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(s, i))), as: UTF8.self)
        }
        // Most tasks share a folder: one string for all of them, not one allocation each.
        var lastDirectory = ""
        func directory() -> String {
            guard let bytes = sqlite3_column_text(s, 2) else { return "" }
            let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(s, 2)))
            if !lastDirectory.utf8.elementsEqual(buffer) { lastDirectory = String(decoding: buffer, as: UTF8.self) }
            return lastDirectory
        }
        func integer(_ i: Int32) -> Int64? { sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_int64(s, i) }
        func real(_ i: Int32) -> Double? { sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_double(s, i) }
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            var task = DownloadTask(url: text(0) ?? "", fileName: text(1) ?? "", directory: directory(),
                                    addTime: Date(timeIntervalSince1970: real(3) ?? 0),
                                    state: text(4).flatMap(TaskState.init(rawValue:)) ?? .paused,
                                    customDisplayName: text(5), mimeType: text(6))
            task.userChoseName = integer(7) == 1
            task.size = integer(8)
            task.received = integer(9) ?? 0
            task.failReason = text(10).map(FailReason.init(storageCode:))
            task.finalURL = text(11)
            task.etag = text(12)
            task.lastModified = text(13)
            task.checksum = text(14).flatMap(Checksum.init)
            task.retries = Int(integer(15) ?? 0)
            task.note = text(16)
            if let json = text(17), let info = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) {
                task.metaInfo = info
            }
            task.deletedAt = real(18).map { Date(timeIntervalSince1970: $0) }
            task.completedPath = text(19)
            task.connections = integer(20).map { Int($0) }
            task.rateLimit = integer(21)
            tasks.append(task)
        }
        return tasks
    }

    static func upsert(_ task: DownloadTask, session: String, db: Database) throws {
        let metaJSON: String? = task.metaInfo.isEmpty ? nil :
            (try? JSONEncoder().encode(task.metaInfo)).flatMap { String(data: $0, encoding: .utf8) }
        let statement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO task (session, url, fileName, customName, userChoseName, directory, size, received,
                addTime, state, failReason, mimeType, finalURL, etag, lastModified, checksum, retries, note, metaInfo,
                deletedAt, completedPath, connections, rateLimit)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let values: [(any DatabaseValueConvertible)?] = [
            session, task.url, task.fileName, task.customDisplayName, task.userChoseName, task.directory, task.size,
            task.received, task.addTime.timeIntervalSince1970, task.state.rawValue, task.failReason?.storageCode,
            task.mimeType, task.finalURL, task.etag, task.lastModified, task.checksum?.description, task.retries,
            task.note, metaJSON, task.deletedAt?.timeIntervalSince1970, task.completedPath, task.connections,
            task.rateLimit,
        ]
        try statement.execute(arguments: StatementArguments(values))
    }
}
