import Foundation
import GRDB
import GRDBSQLite
import TDLCore

/// Maps a `DownloadTask` to a row of the `task` table and back.
enum TaskRecord {
    /// The columns `decode` reads, in order.
    static let selectColumns = TaskColumn.selectList

    /// Every task of a session, into `snapshot`. With a `second` reader (made ready before
    /// this transaction started), the rows above the first 30 % of row ids are its part: this
    /// thread reads its own part, then stores the second's chunks as they come, so that both
    /// threads finish together (storing a task costs about half of decoding it).
    static func read(session: String, db: Database, second: SecondReader?, into snapshot: inout SessionSnapshot) throws {
        // Two subqueries: SQLite reads min and max off the key only when each is alone.
        let bounds = try Row.fetchOne(db, sql: "SELECT (SELECT min(rowid) FROM task), (SELECT max(rowid) FROM task)")
        guard let low: Int64 = bounds?[0], let high: Int64 = bounds?[1] else { return }
        let split = second == nil ? high : low + (high - low) * 3 / 10
        second?.start(above: split, upTo: high)
        snapshot.reserveCapacity(Int(min(high - low + 1, 1 << 24)))  // the row-id span is an upper bound
        try decode(range: low ... split, of: session, db: db) { snapshot.insert($0) }
        guard let second, split < high else { return }
        while true {
            switch try second.next() {
            case .tasks(var tasks):
                // Moved out of the chunk in order, not copied and released with it.
                tasks.reverse()
                while let task = tasks.popLast() { snapshot.insert(task) }
            case .finished: return
            case .notRead: return try decode(range: split + 1 ... high, of: session, db: db) { snapshot.insert($0) }
            }
        }
    }

    private static func decode(range: ClosedRange<Int64>, of session: String, db: Database,
                               each: (DownloadTask) throws -> Void) throws {
        let statement = try db.makeStatement(sql: rangeQuery)
        try statement.setArguments([session, range.lowerBound, range.upperBound])
        try decode(statement.sqliteStatement, db: db.sqliteConnection, each: each)
    }

    /// The rows of a session within a range of row ids: a seek on the table's own key, then
    /// one pass (NOT INDEXED: a primary-key lookup per row was 5x slower).
    static let rangeQuery = "SELECT \(selectColumns) FROM task NOT INDEXED WHERE session = ? AND rowid BETWEEN ? AND ?"

    /// Steps a statement over `selectColumns`, reading columns through SQLite's own calls:
    /// decoding through generic row values took most of a launch's time.
    static func decode(_ s: OpaquePointer, db: OpaquePointer?, each: (DownloadTask) throws -> Void) throws {
        func text(_ column: TaskColumn) -> String? {
            let i = column.rawValue
            guard let bytes = sqlite3_column_text(s, i) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(s, i))), as: UTF8.self)
        }
        // Most tasks share a folder: one string for all of them, not one allocation each.
        var lastDirectory = ""
        func directory() -> String {
            if !holds(.directory, lastDirectory) { lastDirectory = text(.directory) ?? "" }
            return lastDirectory
        }
        /// Whether column `i` holds exactly `known`'s bytes: a row's text is then not made again.
        func holds(_ column: TaskColumn, _ known: String) -> Bool {
            let i = column.rawValue
            guard let bytes = sqlite3_column_text(s, i) else { return false }
            let count = Int(sqlite3_column_bytes(s, i))
            return known.utf8.count == count && known.utf8.withContiguousStorageIfAvailable {
                memcmp($0.baseAddress!, bytes, count) == 0
            } == true
        }
        // A state is one of six words: told by its bytes, without a string per row, and read
        // from SQLite once rather than once per word.
        let states = TaskState.allCases.map { (Array($0.rawValue.utf8), $0) }
        func state() -> TaskState? {
            guard let bytes = sqlite3_column_text(s, TaskColumn.state.rawValue) else { return nil }
            let count = Int(sqlite3_column_bytes(s, TaskColumn.state.rawValue))
            return states.first { word, _ in
                word.count == count && word.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes, count) == 0 }
            }?.1
        }
        func integer(_ column: TaskColumn) -> Int64? {
            sqlite3_column_type(s, column.rawValue) == SQLITE_NULL ? nil : sqlite3_column_int64(s, column.rawValue)
        }
        func real(_ column: TaskColumn) -> Double? {
            sqlite3_column_type(s, column.rawValue) == SQLITE_NULL ? nil : sqlite3_column_double(s, column.rawValue)
        }
        let decoder = JSONDecoder()
        // Tasks added together have the same options: decoded once, held once.
        var lastOptionsJSON = ""
        var lastOptions: DownloadOptions?
        var sharedOptions: SharedOptions?
        var previous: DownloadTask?
        // Failed tasks mostly failed for a few reasons: a task whose only seldom-set field is
        // its failure shares that of an earlier one (at most 256 different texts are kept).
        var failures: [String: DownloadTask] = [:]
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db)))
            }
            var task = DownloadTask(url: text(.url) ?? "", fileName: text(.fileName) ?? "", directory: directory(),
                                    addTime: Date(timeIntervalSince1970: real(.addTime) ?? 0),
                                    state: state() ?? .paused,
                                    customDisplayName: text(.customName), mimeType: text(.mimeType))
            task.size = SavedNumbers.bytes(integer(.size))
            task.received = SavedNumbers.bytes(integer(.received)) ?? 0
            // A new task's seldom-set fields are unset: only those the row holds are set.
            let failure = text(.failReason).map { code in (code: code, shared: failures[code]) }
            if let failure { task.failReason = failure.shared?.failReason ?? FailReason(storageCode: failure.code) }
            if let finalURL = text(.finalURL) { task.finalURL = finalURL }
            if let etag = text(.etag) { task.etag = etag }
            if let lastModified = text(.lastModified) { task.lastModified = lastModified }
            let retries = Int(max(0, min(integer(.retries) ?? 0, 1_000)))
            if retries != 0 { task.retries = retries }
            if let note = text(.note) { task.note = note }
            if let json = text(.metaInfo), let info = try? decoder.decode([String: String].self, from: Data(json.utf8)) {
                task.metaInfo = info
            }
            task.deletedAt = real(.deletedAt).map { Date(timeIntervalSince1970: $0) }
            if let completedPath = text(.completedPath) { task.completedPath = completedPath }
            if lastOptions != nil && holds(.options, lastOptionsJSON) {
                task.setOptions(lastOptions!, sharing: &sharedOptions)
            } else if let json = text(.options) {
                // A damaged value costs the options of one task, not the session.
                if let options = try? decoder.decode(DownloadOptions.self, from: Data(json.utf8)).withinRanges {
                    task.setOptions(options, sharing: &sharedOptions)
                    lastOptionsJSON = json
                    lastOptions = options
                } else {
                    task.note = "its saved options could not be read; they were dropped"
                }
            }
            if let failure {
                if let shared = failure.shared {
                    task.shareExtras(ifEqualTo: shared)
                } else if failures.count < 256 {
                    var shared = DownloadTask(url: "", fileName: "", directory: "")
                    shared.failReason = task.failReason
                    failures[failure.code] = shared
                    task.shareExtras(ifEqualTo: shared)
                }
            }
            if let previous { task.shareExtras(ifEqualTo: previous) }
            previous = task
            try each(task)
        }
    }

    /// The session, then every task column in `TaskColumn` order: `upsert` binds them so.
    static let upsertColumns = ["session"] + TaskColumn.inOrder.map(\.name)

    /// An update in place when the task exists: REPLACE would delete the row (and, through the
    /// foreign key, its segments) and insert it again under a new row id.
    static let upsertSQL = """
        INSERT INTO task (\(upsertColumns.joined(separator: ", "))) VALUES (\(upsertColumns.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT(session, url) DO UPDATE SET \(upsertColumns.dropFirst(2).map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
        """

    /// Sorted keys: the same options are the same text.
    static var optionsEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// The last options written and their JSON: the tasks of one batch mostly have the same
    /// options, and encoding them for each of a million rows took a tenth of an `add`.
    struct OptionsText {
        private var last: (options: DownloadOptions, json: String?)?

        init() {}

        mutating func json(_ options: DownloadOptions) throws -> String? {
            if let last, last.options == options { return last.json }
            let json: String? = options.isEmpty ? nil : String(decoding: try optionsEncoder.encode(options), as: UTF8.self)
            last = (options, json)
            return json
        }
    }

    /// Writes one task with `statement`, a prepared `upsertSQL`.
    static func upsert(_ task: DownloadTask, session: String, with statement: Statement, db: Database,
                       optionsText: inout OptionsText) throws {
        // The boxed fields copied once, not once for each of them.
        let details = task.details
        let metaJSON: String? = details.metaInfo.isEmpty ? nil :
            (try? JSONEncoder().encode(details.metaInfo)).flatMap { String(data: $0, encoding: .utf8) }
        let optionsJSON = try optionsText.json(details.options)
        var row = RowWriter(statement, db)
        row.bind(session)
        for column in TaskColumn.inOrder {
            switch column {
            case .url: row.bind(task.url)
            case .fileName: row.bind(details.fileName)
            case .directory: row.bind(details.directory)
            case .addTime: row.bind(task.addTime.timeIntervalSince1970)
            case .state: row.bind(task.state.rawValue)
            case .customName: row.bind(details.customDisplayName)
            case .mimeType: row.bind(details.mimeType)
            case .size: row.bind(task.size)
            case .received: row.bind(details.received)
            case .failReason: row.bind(details.failReason?.storageCode)
            case .finalURL: row.bind(details.finalURL)
            case .etag: row.bind(details.etag)
            case .lastModified: row.bind(details.lastModified)
            case .retries: row.bind(details.retries)
            case .note: row.bind(details.note)
            case .metaInfo: row.bind(metaJSON)
            case .deletedAt: row.bind(task.deletedAt?.timeIntervalSince1970)
            case .completedPath: row.bind(details.completedPath)
            case .options: row.bind(optionsJSON)
            }
        }
        try row.run()
    }
}
