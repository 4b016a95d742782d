import Foundation
import GRDB
import TDLCore

/// Maps a `DownloadTask` to a row of the `task` table and back.
enum TaskRecord {
    static func task(from row: Row) -> DownloadTask {
        var task = DownloadTask(url: row["url"], fileName: row["fileName"], directory: row["directory"],
                                addTime: Date(timeIntervalSince1970: row["addTime"]),
                                state: TaskState(rawValue: row["state"]) ?? .paused)
        task.customDisplayName = row["customName"]
        task.userChoseName = row["userChoseName"]
        task.size = row["size"]
        task.received = row["received"]
        task.failReason = (row["failReason"] as String?).map(FailReason.init(storageCode:))
        task.mimeType = row["mimeType"]
        task.finalURL = row["finalURL"]
        task.etag = row["etag"]
        task.lastModified = row["lastModified"]
        task.checksum = (row["checksum"] as String?).flatMap(Checksum.init)
        task.retries = row["retries"]
        task.note = row["note"]
        if let json = row["metaInfo"] as String?, let data = json.data(using: .utf8),
           let info = try? JSONDecoder().decode([String: String].self, from: data) {
            task.metaInfo = info
        }
        task.deletedAt = (row["deletedAt"] as Double?).map { Date(timeIntervalSince1970: $0) }
        task.completedPath = row["completedPath"]
        task.connections = row["connections"]
        task.rateLimit = row["rateLimit"]
        return task
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
