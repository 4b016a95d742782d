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
final class SecondReader: Sendable {
    /// What `next` hands over.
    enum Handover: Sendable {
        case tasks([DownloadTask])
        /// Every row of the range was handed over.
        case finished
        /// Nothing was read: the caller reads the range itself.
        case notRead
    }

    /// Sessions smaller than this are read by one connection: a second one costs more than it saves.
    static let smallestFile: Int64 = 4 << 20
    static let chunkSize = 8192

    /// What the two threads share.
    private struct Shared {
        var isReady = false
        var range: (above: Int64, upTo: Int64)?
        var isCancelled = false
        var chunks: [[DownloadTask]] = []
        /// Set once the reading thread is done: nil while it reads.
        var outcome: Result<Bool, any Error>?
    }

    /// Guards all shared state; each side waits on its semaphore, signalled after every change
    /// the other side makes, and looks again (a signal may be for an earlier change).
    private let shared = Locked(Shared())
    private let toLoader = DispatchSemaphore(value: 0)
    private let toReader = DispatchSemaphore(value: 0)

    /// Nil when the file is smaller than `smallest` (or cannot be looked at).
    init?(path: String, session: String, ifAtLeast smallest: Int64) {
        // stat, not FileManager's attributes: those look up the owner's user and group names.
        guard SQLiteSessionStore.fileSize(path) >= smallest else { return nil }
        DispatchQueue.global(qos: .userInitiated).async { self.run(path: path, session: session) }
    }

    /// Waits on `semaphore` until `answer` gives a value.
    private func wait<T: Sendable>(on semaphore: DispatchSemaphore, for answer: (inout Shared) -> T?) -> T {
        while true {
            if let value = shared.withLock({ answer(&$0) }) { return value }
            semaphore.wait()
        }
    }

    /// Returns once the data version is noted (or the connection could not open): the loading
    /// transaction must start after this.
    func waitUntilReady() {
        wait(on: toLoader) { $0.isReady ? () : nil }
    }

    /// Reads the rows of `session` with row ids in `above + 1 ... upTo`, if this connection
    /// sees the commit the loading one does.
    func start(above: Int64, upTo: Int64) {
        shared.withLock { $0.range = (above, upTo) }
        toReader.signal()
    }

    /// Stops reading, and returns once this connection is done with the file.
    func cancel() {
        shared.withLock { $0.isCancelled = true }
        toReader.signal()
        wait(on: toLoader) { $0.outcome != nil ? () : nil }
    }

    /// The next chunk, waiting for it; throws what failed after rows were handed over.
    func next() throws -> Handover {
        let next: Result<Handover, any Error> = wait(on: toLoader) { shared in
            if !shared.chunks.isEmpty { return .success(.tasks(shared.chunks.removeFirst())) }
            return shared.outcome.map { outcome in outcome.map { $0 ? .finished : .notRead } }
        }
        return try next.get()
    }

    private func run(path: String, session: String) {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        // A connection that cannot open or begin, or sees another commit, leaves the rows to
        // the loading connection, which reports a failure if it is the file's.
        var opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK
        let before = opened ? Self.dataVersion(connection) : nil
        shared.withLock { $0.isReady = true }
        toLoader.signal()
        let (range, isCancelled) = wait(on: toReader) { shared in
            shared.range != nil || shared.isCancelled ? (shared.range, shared.isCancelled) : nil
        }
        opened = opened && !isCancelled
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
        let handed = try shared.withLock { shared in
            if shared.isCancelled { throw CancellationError() }
            guard !chunk.isEmpty else { return false }
            shared.chunks.append(chunk)
            return true
        }
        guard handed else { return }
        toLoader.signal()
        chunk = []
        chunk.reserveCapacity(Self.chunkSize)
    }

    private func finish(_ result: Result<Bool, any Error>) {
        shared.withLock { $0.outcome = result }
        toLoader.signal()
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
