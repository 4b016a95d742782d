import Foundation
import GRDB
import GRDBSQLite
import TDLCore

/// Reads the upper part of a session's task rows on a second thread and connection while the
/// loading connection reads the rest: decoding a million rows is most of a launch.
///
/// Both connections must see the same commit, though another process may write between
/// their transactions. So this connection notes the database's data version before the
/// loading transaction starts (`waitUntilReady`) and again at the start of its own: a commit
/// by anyone in between changes it, and the loading connection then reads those rows itself.
///
/// Rows are handed over in chunks as they are decoded, so the loading thread stores them in
/// the table while this one goes on.
final class SecondReader: @unchecked Sendable {
    /// What `next` hands over.
    enum Handover {
        case tasks([DownloadTask])
        /// Every row of the range was handed over.
        case finished
        /// Nothing was read: the caller reads the range itself.
        case notRead
    }

    /// Sessions smaller than this are read by one connection: a second one costs more than it saves.
    static let smallestFile: Int64 = 4 << 20
    static let chunkSize = 8192

    private let condition = NSCondition()
    private var isReady = false
    private var range: (above: Int64, upTo: Int64)?
    private var isCancelled = false
    private var chunks: [[DownloadTask]] = []
    /// Set once this thread is done: nil while it reads.
    private var outcome: Result<Bool, Error>?

    /// Nil when the file is smaller than `smallest` (or cannot be looked at).
    init?(path: String, session: String, ifAtLeast smallest: Int64) {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
              size.int64Value >= smallest else { return nil }
        DispatchQueue.global(qos: .userInitiated).async { self.run(path: path, session: session) }
    }

    /// Returns once the data version is noted (or the connection could not open): the loading
    /// transaction must start after this.
    func waitUntilReady() {
        condition.lock()
        while !isReady { condition.wait() }
        condition.unlock()
    }

    /// Reads the rows of `session` with row ids in `above + 1 ... upTo`, if this connection
    /// sees the commit the loading one does.
    func start(above: Int64, upTo: Int64) {
        condition.lock()
        range = (above, upTo)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops reading, and returns once this connection is done with the file.
    func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        while outcome == nil { condition.wait() }
        condition.unlock()
    }

    /// The next chunk, waiting for it; throws what failed after rows were handed over.
    func next() throws -> Handover {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && outcome == nil { condition.wait() }
        if !chunks.isEmpty { return .tasks(chunks.removeFirst()) }
        return try outcome!.get() ? .finished : .notRead
    }

    private func run(path: String, session: String) {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        // A connection that cannot open or begin, or sees another commit, leaves the rows to
        // the loading connection, which reports a failure if it is the file's.
        var opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK
        let before = opened ? Self.dataVersion(connection) : nil
        condition.lock()
        isReady = true
        condition.broadcast()
        while range == nil && !isCancelled { condition.wait() }
        let range = self.range
        opened = opened && !isCancelled
        condition.unlock()
        guard opened, let range, let before, let connection,
              sqlite3_exec(connection, "BEGIN", nil, nil, nil) == SQLITE_OK else { return finish(.success(false)) }
        defer { sqlite3_exec(connection, "ROLLBACK", nil, nil, nil) }
        guard Self.dataVersion(connection) == before else { return finish(.success(false)) }
        finish(Result {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            let code = sqlite3_prepare_v2(connection, TaskRecord.rangeQuery, -1, &statement, nil)
            guard code == SQLITE_OK, let statement else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
            }
            // SQLITE_TRANSIENT: SQLite keeps its own copy of the session name.
            sqlite3_bind_text(statement, 1, session, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            sqlite3_bind_int64(statement, 2, range.above + 1)  // BETWEEN is inclusive
            sqlite3_bind_int64(statement, 3, range.upTo)
            var chunk: [DownloadTask] = []
            chunk.reserveCapacity(Self.chunkSize)
            do {
                try TaskRecord.decode(statement, db: connection) { task in
                    chunk.append(task)
                    if chunk.count == Self.chunkSize { try hand(&chunk) }
                }
                try hand(&chunk)
            } catch let error as DatabaseError {
                throw SQLiteSessionStore.explained(error, connection: connection)
            }
            return true
        })
    }

    /// Throws once cancelled: the rest is not wanted.
    private func hand(_ chunk: inout [DownloadTask]) throws {
        condition.lock()
        defer { condition.unlock() }
        if isCancelled { throw CancellationError() }
        guard !chunk.isEmpty else { return }
        chunks.append(chunk)
        condition.broadcast()
        chunk = []
        chunk.reserveCapacity(Self.chunkSize)
    }

    private func finish(_ result: Result<Bool, Error>) {
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// Changes whenever another connection commits; begins a read transaction when in one.
    private static func dataVersion(_ connection: OpaquePointer?) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
