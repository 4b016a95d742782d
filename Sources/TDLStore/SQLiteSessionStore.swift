import Foundation
import GRDB
import TDLCore

/// Why a session database could not be opened as it is.
public enum StoreError: Error, CustomStringConvertible {
    /// The file was not a usable database; it was moved aside and a fresh one started.
    case movedAside(original: String, movedTo: String, reason: String)
    /// The database was written by a newer tdl; nothing was changed.
    case newerSchema(path: String)

    public var description: String {
        switch self {
        case let .movedAside(original, movedTo, reason):
            return "the session database \(original) was damaged (\(reason)); it was moved to \(movedTo) and a fresh session started"
        case let .newerSchema(path):
            return "the session database \(path) was written by a newer tdl; update tdl or use another --home"
        }
    }
}

/// The session in one SQLite file (WAL), several sessions side by side by name.
/// Only what changed is written, in one transaction per commit.
public final class SQLiteSessionStore: SessionStore {
    public let path: String
    public let session: String
    private(set) var dbQueue: DatabaseQueue
    /// How many segment rows each task has in the file, as this store last read or wrote them.
    private var writtenSegmentCounts: [String: Int] = [:]
    /// True when a task missing from `writtenSegmentCounts` has no segment rows: the file was
    /// new, or this store, the session's one writer, has read them all.
    private var segmentCountsAreComplete = false
    /// Set when a damaged file had to be moved aside on open or on load: the caller tells the user.
    public private(set) var recoveryNotice: StoreError?

    /// This process is the session's one writer (it holds the session's lock), so its rows
    /// cannot change under a load: the load may read them on two threads.
    let soleWriter: Bool

    public init(path: String, session: String = "default", soleWriter: Bool = false) throws {
        self.path = path
        self.session = session
        self.soleWriter = soleWriter
        segmentCountsAreComplete = soleWriter && Self.isNewFile(path)
        do {
            dbQueue = try Self.open(path)
        } catch let error as StoreError {
            throw error
        } catch {
            let aside = Self.moveAside(path)
            dbQueue = try Self.open(path)
            segmentCountsAreComplete = soleWriter
            recoveryNotice = .movedAside(original: path, movedTo: aside, reason: Self.describe(error))
        }
    }

    /// Never deletes a damaged database: moves it (and its WAL) aside for the user, so that a
    /// fresh one can start at `path`. Returns where it went.
    static func moveAside(_ path: String) -> String {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let aside = path + ".damaged-" + stamp
        try? FileManager.default.moveItem(atPath: path, toPath: aside)
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }

    /// Errors that mean the file itself is damaged, as opposed to busy, unreadable or full.
    static func isDamage(_ error: Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    static func describe(_ error: Error) -> String {
        if let dbError = error as? DatabaseError {
            switch dbError.resultCode {
            case .SQLITE_NOTADB: return "not a database"
            case .SQLITE_CORRUPT: return dbError.message ?? "corrupt"
            default: return dbError.message ?? "\(dbError.resultCode)"
            }
        }
        return "\(error)"
    }

    static func open(_ path: String) throws -> DatabaseQueue {
        // A new file is created and given its schema without syncs: six of them (the journal
        // mode switch, the first WAL write, their folders) took about 3.5 ms of a first
        // `tdl get`'s 45 ms to its first connection. Nothing can be lost without them, and a
        // file cut short by a power failure during its creation is caught below and started
        // afresh.
        let isNew = isNewFile(path)
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            // NORMAL in WAL mode survives a crash of the process; a commit costs no fsync.
            try db.execute(sql: isNew ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        let migrator = Schema.migrator
        let superseded = try queue.read { db in
            // Touch the schema so a file that is not a database fails here, not later.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            return try migrator.hasBeenSuperseded(db)
        }
        if superseded { throw StoreError.newerSchema(path: path) }
        try migrator.migrate(queue)
        if isNew { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") } }
        // A full `PRAGMA quick_check` took 50 ms at 100,000 tasks. Instead: a file cut short is
        // caught here in O(1), and a damaged page of the session's tables when `load` reads
        // every row of them.
        try queue.read { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            // Pages not yet copied into the main file are in the WAL. The WAL is measured first:
            // another process may copy it into the main file and delete it in between, and
            // measured the other way round both sizes could miss those pages.
            let walBytes = fileSize(path + "-wal")
            if pages * pageSize > fileSize(path) + walBytes {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the file is shorter than its header says")
            }
        }
        return queue
    }

    /// Neither the file nor a WAL of it exists yet.
    static func isNewFile(_ path: String) -> Bool {
        access(path, F_OK) != 0 && access(path + "-wal", F_OK) != 0
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    // MARK: - Reading

    /// Everything of this session. A damaged file found while reading is moved aside like one
    /// found on open, and the session starts empty (`recoveryNotice` says so).
    public func load() throws -> SessionSnapshot {
        do {
            return try read()
        } catch where Self.isDamage(error) {
            try dbQueue.close()
            let aside = Self.moveAside(path)
            dbQueue = try Self.open(path)
            writtenSegmentCounts = [:]
            segmentCountsAreComplete = soleWriter
            recoveryNotice = .movedAside(original: path, movedTo: aside, reason: Self.describe(error))
            return SessionSnapshot()
        }
    }

    private func read() throws -> SessionSnapshot {
        try dbQueue.read { db in
            var segments: [String: [Segment]] = [:]
            let segmentRows = try Row.fetchCursor(db, sql: """
                SELECT url, start, "end", done FROM segment WHERE session = ? ORDER BY url, position
                """, arguments: [session])
            while let row = try segmentRows.next() {
                segments[row[0], default: []].append(Segment(start: row[1], end: row[2], done: row[3]))
            }
            var snapshot = SessionSnapshot(settings: try SettingsRecord.load(db, session: session))
            try TaskRecord.read(session: session, db: db, path: path, inParallel: soleWriter, into: &snapshot)
            for (url, list) in segments { snapshot.setSegments(list, of: url) }
            if soleWriter {
                writtenSegmentCounts = segments.mapValues(\.count)
                segmentCountsAreComplete = true
            }
            let titles = try String.fetchAll(db, sql: "SELECT title FROM layoutSection WHERE session = ? ORDER BY position", arguments: [session])
            if !titles.isEmpty {
                var sections = Array(repeating: [String](), count: titles.count)
                let rows = try Row.fetchCursor(db, sql: "SELECT url, section FROM layoutRow WHERE session = ? ORDER BY section, row", arguments: [session])
                while let row = try rows.next() {
                    let section: Int = row[1]
                    if sections.indices.contains(section) { sections[section].append(row[0]) }
                }
                snapshot.manualLayout = ManualLayout(sections: sections, titles: titles)
            }
            return snapshot
        }
    }

    // MARK: - Writing

    public func commit(_ changes: SessionChanges) throws {
        guard !changes.isEmpty else { return }
        // A rolled-back transaction leaves the counts unknown: ask the file again next time.
        do {
            try write(changes)
        } catch {
            writtenSegmentCounts = [:]
            segmentCountsAreComplete = false
            throw error
        }
    }

    private func write(_ changes: SessionChanges) throws {
        try dbQueue.write { db in
            for url in changes.removed {
                try db.execute(sql: "DELETE FROM task WHERE session = ? AND url = ?", arguments: [session, url])
                try db.execute(sql: "DELETE FROM segment WHERE session = ? AND url = ?", arguments: [session, url])
                try db.execute(sql: "DELETE FROM layoutRow WHERE session = ? AND url = ?", arguments: [session, url])
                writtenSegmentCounts[url] = 0
            }
            for task in changes.upserted {
                try TaskRecord.upsert(task, session: session, db: db)
                try writeSegments(task.url, task.segments, db)
            }
            // Only the segments: a task's received count is their sum, restored from them on
            // load. Rewriting the task rows too put a page of the big table per download into
            // every checkpoint.
            for (url, segments) in changes.progress {
                try writeSegments(url, segments, db)
            }
            if let settings = changes.settings {
                try SettingsRecord.save(settings, db, session: session)
            }
            if let layout = changes.manualLayout {
                try writeLayout(layout, db)
            }
        }
    }

    /// Upserts a task's segments in one statement and drops rows beyond the new count (a split
    /// adds segments; a restart from zero leaves one). A checkpoint runs this for every active
    /// download on the event loop, so it is two statements per task at most, one when the
    /// count is the one this store last wrote.
    func writeSegments(_ url: String, _ segments: [Segment], _ db: Database) throws {
        if !segments.isEmpty {
            let rows = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: segments.count).joined(separator: ", ")
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO segment (session, url, position, start, "end", done) VALUES \(rows)
                ON CONFLICT(session, url, position) DO UPDATE SET start = excluded.start, "end" = excluded."end", done = excluded.done
                """)
            var row = RowWriter(upsert, db)
            for (position, segment) in segments.enumerated() {
                row.bind(session)
                row.bind(url)
                row.bind(position)
                row.bind(segment.start)
                row.bind(segment.end)
                row.bind(segment.done)
            }
            try row.run()
        }
        let written = writtenSegmentCounts[url] ?? (segmentCountsAreComplete ? 0 : nil)
        // Rows beyond the new count can only exist when the file had more, or may have.
        if written.map({ $0 > segments.count }) ?? true {
            let dropTail = try db.cachedStatement(sql: "DELETE FROM segment WHERE session = ? AND url = ? AND position >= ?")
            var row = RowWriter(dropTail, db)
            row.bind(session)
            row.bind(url)
            row.bind(segments.count)
            try row.run()
        }
        if written != segments.count { writtenSegmentCounts[url] = segments.count }
    }

    func writeLayout(_ layout: ManualLayout, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM layoutSection WHERE session = ?", arguments: [session])
        try db.execute(sql: "DELETE FROM layoutRow WHERE session = ?", arguments: [session])
        let sectionStatement = try db.cachedStatement(sql: "INSERT INTO layoutSection (session, position, title) VALUES (?, ?, ?)")
        let rowStatement = try db.cachedStatement(sql: "INSERT INTO layoutRow (session, url, section, row) VALUES (?, ?, ?, ?)")
        for (s, title) in layout.titles.enumerated() {
            try sectionStatement.execute(arguments: [session, s, title])
            for (r, url) in layout.sections[s].enumerated() {
                try rowStatement.execute(arguments: [session, url, s, r])
            }
        }
    }

    // MARK: - Sessions

    /// Names of every session in this database, with their task counts.
    public static func sessions(path: String) throws -> [(name: String, tasks: Int)] {
        let queue = try open(path)
        return try queue.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT session, count(*) FROM task GROUP BY session
                UNION SELECT session, 0 FROM setting WHERE session NOT IN (SELECT session FROM task) GROUP BY session
                ORDER BY 1
                """)
            return rows.map { ($0[0], $0[1]) }
        }
    }

    /// Forgets a session's records. Downloaded files are never touched.
    public static func destroySession(_ name: String, path: String) throws {
        let queue = try open(path)
        try queue.write { db in
            for table in ["task", "segment", "layoutSection", "layoutRow", "setting"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE session = ?", arguments: [name])
            }
        }
    }
}
