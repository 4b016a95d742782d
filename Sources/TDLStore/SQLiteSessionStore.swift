import Foundation
import GRDB
import GRDBSQLite
import TDLCore

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
    /// The file was created by this store, the session's one writer, and nothing was committed
    /// since: loading it has nothing to read (five queries of a first `tdl get`).
    private var holdsNothingYet = false

    /// This process is the session's one writer (it holds the session's lock), so the segment
    /// rows it read are all there are until it writes more.
    let soleWriter: Bool
    /// A command that only reads (`tdl list`): a damaged file is reported, never moved aside.
    let readOnly: Bool

    /// `readOnly` stores neither move a damaged file nor check that the file can be written.
    /// Only damage moves a file aside; any other failure throws `StoreError.unusable`.
    public init(path: String, session: String = "default", soleWriter: Bool = false, readOnly: Bool = false) throws {
        self.path = path
        self.session = session
        self.soleWriter = soleWriter
        self.readOnly = readOnly
        let isNew = Self.isNewFile(path)
        segmentCountsAreComplete = soleWriter && isNew
        var notice = try SessionFileGuard.setAsideForeignJournal(path, readOnly: readOnly)
        dbQueue = try Self.reported(path) {
            do {
                return try Self.open(path, writing: !readOnly)
            } catch where Self.isDamage(error) && !readOnly {
                let aside = try Self.moveAside(path, reason: Self.describe(error))
                notice = .movedAside(original: path, movedTo: aside, reason: Self.describe(error))
                return try Self.open(path)
            }
        }
        let movedAside = if case .movedAside? = notice { true } else { false }
        if movedAside { segmentCountsAreComplete = soleWriter }
        holdsNothingYet = soleWriter && (isNew || movedAside)
        recoveryNotice = notice
    }

    /// Runs `body`, turning what it throws into a `StoreError` that names the file: damage
    /// that is not moved aside here is `.damaged`, anything else `.unusable`.
    static func reported<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch where isDamage(error) {
            throw StoreError.damaged(path: path, reason: describe(error))
        } catch {
            throw StoreError.unusable(path: path, reason: describe(error))
        }
    }

    /// Never deletes a damaged database: moves it (and its WAL) aside for the user, so that a
    /// fresh one can start at `path`. Returns where it went.
    static func moveAside(_ path: String, reason: String) throws -> String {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let aside = path + ".damaged-" + stamp
        // Opening the damaged file again would only fail again: say why it stays.
        guard rename(path, aside) == 0 else {
            throw StoreError.unusable(path: path, reason: "it is damaged (\(reason)) and cannot be moved aside: \(String(cString: strerror(errno)))")
        }
        for suffix in ["-wal", "-shm"] {
            rename(path + suffix, aside + suffix)  // either may not exist
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

    /// Runs `body`, adding the operating system's reason to a SQLite error that hides it:
    /// SQLite says "unable to open database file" or "disk I/O error", errno says "Too many
    /// open files" or "No space left on device".
    static func explained<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw explained(error, connection: db.sqliteConnection)
        }
    }

    static func explained(_ error: DatabaseError, connection: OpaquePointer?) -> DatabaseError {
        let code = sqlite3_system_errno(connection)
        guard code != 0, error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_IOERR else { return error }
        let words = String(cString: strerror(code))
        return DatabaseError(resultCode: error.extendedResultCode, message: (error.message.map { $0 + ": " } ?? "") + words,
                             sql: error.sql)
    }

    /// Set in the header by a commit that found the file damaged: the next open moves it aside
    /// instead of writing on. A page loading does not read (an index's) is otherwise found
    /// only by the next write that needs it.
    static let damagedMark: Int32 = 0x7D1_DEAD

    /// `writing`: fail now, not at the first commit, when the file cannot be written.
    static func open(_ path: String, writing: Bool = true) throws -> DatabaseQueue {
        // A new file is created and given its schema without syncs: six of them (the journal
        // mode switch, the first WAL write, their folders) took about 3.5 ms of a first
        // `tdl get`'s 45 ms to its first connection. Nothing can be lost without them, and a
        // file cut short by a power failure during its creation is caught below and started
        // afresh.
        let isNew = isNewFile(path)
        if writing { SessionFileGuard.makeOwnerOnly(path, isNew: isNew) }
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try explained(db) {
                // NORMAL in WAL mode survives a crash of the process; a commit costs no fsync.
                try db.execute(sql: isNew ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                // Touch the schema so a file that is not a database, or a WAL that cannot be
                // opened, fails here, where the operating system's reason can still be asked.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            }
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN && !isNew {
            // Failed before SQLite had a connection to ask for errno: the system tells why the
            // file does not open (a WAL that does not open was explained above, and this opens).
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd < 0 else { Glibc.close(fd); throw error }
            let words = String(cString: strerror(errno))
            throw (error.message ?? "").hasSuffix(words) ? error
                : DatabaseError(resultCode: error.extendedResultCode, message: (error.message ?? "") + ": " + words)
        }
        // A new file gets the latest schema in one commit, not the migrations in five (about
        // 2 ms of a first `tdl get`).
        let created = isNew && writing
            ? try queue.writeWithoutTransaction { db in try explained(db) { try Schema.createIfEmpty(db) } }
            : false
        if !created {
            let migrator = Schema.migrator
            let (superseded, migrated) = try queue.read { db in
                try explained(db) { (try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db)) }
            }
            if superseded { throw StoreError.newerSchema(path: path) }
            if !migrated { try migrator.migrate(queue) }
        }
        if isNew { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") } }
        // This call just wrote the file it created: it is whole and writable.
        if created { return queue }
        // A full `PRAGMA quick_check` took 50 ms at 100,000 tasks. Instead: a file cut short is
        // caught here in O(1), and a damaged page of the session's tables when `load` reads
        // every row of them.
        try queue.read { db in
            try explained(db) {
                if try Int32.fetchOne(db, sql: "PRAGMA user_version") == damagedMark {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "an earlier tdl found it damaged while saving")
                }
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
        }
        if writing {
            try queue.writeWithoutTransaction { db in
                // SQLite opens a file it may not write read-only, and says so at the first commit.
                if sqlite3_db_readonly(db.sqliteConnection, "main") == 1 {
                    let why = access(path, W_OK) == 0 ? "" : ": " + String(cString: strerror(errno))
                    throw DatabaseError(resultCode: .SQLITE_READONLY, message: "it cannot be written" + why)
                }
                // Takes and drops the write lock, writing nothing: another program's write
                // is waited out for the busy timeout, here rather than at the first commit.
                try explained(db) {
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    try db.execute(sql: "ROLLBACK")
                }
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
    /// found on open, and the session starts empty (`recoveryNotice` says so); a read-only
    /// store reports it instead.
    public func load() throws -> SessionSnapshot {
        if holdsNothingYet { return SessionSnapshot(settings: SettingsRecord.settings(from: [:])) }
        return try readMovingDamageAside { try read() }
    }

    /// Whether the session has no task, in its list or its trash.
    public func holdsNoTask() throws -> Bool {
        try Self.reported(path) {
            try dbQueue.read { db in
                try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM task WHERE session = ?)", arguments: [session]) ?? false)
            }
        }
    }

    /// Runs a read of the session; damage it finds moves the file aside (see `load`).
    func readMovingDamageAside(_ read: () throws -> SessionSnapshot) throws -> SessionSnapshot {
        try Self.reported(path) {
            do {
                return try read()
            } catch where Self.isDamage(error) && !readOnly {
                try dbQueue.close()
                let aside = try Self.moveAside(path, reason: Self.describe(error))
                dbQueue = try Self.open(path)
                writtenSegmentCounts = [:]
                segmentCountsAreComplete = soleWriter
                recoveryNotice = .movedAside(original: path, movedTo: aside, reason: Self.describe(error))
                return SessionSnapshot()
            }
        }
    }

    /// A file at least this large is read by two connections (see `SecondReader`).
    var twoReadersFrom = SecondReader.smallestFile

    private func read() throws -> SessionSnapshot {
        let second = SecondReader(path: path, session: session, ifAtLeast: twoReadersFrom)
        second?.waitUntilReady()
        // Done with the file before anything is thrown: damage moves it aside.
        defer { second?.cancel() }
        return try dbQueue.read { db in try Self.explained(db) {
            var segments: [String: [Segment]] = [:]
            let segmentRows = try Row.fetchCursor(db, sql: """
                SELECT url, start, "end", done FROM segment WHERE session = ? ORDER BY url, position
                """, arguments: [session])
            while let row = try segmentRows.next() {
                segments[row[0], default: []].append(Segment(start: row[1], end: row[2], done: row[3]))
            }
            var snapshot = SessionSnapshot(settings: try SettingsRecord.load(db, session: session))
            try TaskRecord.read(session: session, db: db, second: second, into: &snapshot)
            for (url, list) in segments { snapshot.setSegments(SavedNumbers.segments(list), of: url) }
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
            snapshot.pendingPurges = try String.fetchAll(db, sql: "SELECT url FROM pendingPurge WHERE session = ?", arguments: [session])
            return snapshot
        } }
    }

    // MARK: - Writing

    public func commit(_ changes: SessionChanges) throws {
        try commit(changes, with: nil)
    }

    /// Commits `changes` and what `more` writes in one transaction.
    func commit(_ changes: SessionChanges, with more: ((Database) throws -> Void)?) throws {
        guard !changes.isEmpty || more != nil else { return }
        holdsNothingYet = false
        do {
            try write(changes, more)
        } catch {
            // A rolled-back transaction leaves the counts unknown: ask the file again next time.
            writtenSegmentCounts = [:]
            segmentCountsAreComplete = false
            guard Self.isDamage(error) else { throw StoreError.notSaved(path: path, reason: Self.describe(error)) }
            // The header is on the first page, which opening the file has read whole.
            try? dbQueue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(Self.damagedMark)") }
            throw StoreError.damagedWhileWriting(path: path, reason: Self.describe(error))
        }
    }

    private func write(_ changes: SessionChanges, _ more: ((Database) throws -> Void)?) throws {
        // The transaction inside `explained`: a failing COMMIT gets its reason too.
        try dbQueue.writeWithoutTransaction { db in try Self.explained(db) { try PageCache.enlarged(db, forRows: changes.upserted.count) { try CommitTransaction.run(db) {
            for url in changes.removed {
                try db.execute(sql: "DELETE FROM task WHERE session = ? AND url = ?", arguments: [session, url])
                try db.execute(sql: "DELETE FROM segment WHERE session = ? AND url = ?", arguments: [session, url])
                try db.execute(sql: "DELETE FROM layoutRow WHERE session = ? AND url = ?", arguments: [session, url])
                writtenSegmentCounts[url] = 0
            }
            var optionsText = TaskRecord.OptionsText()
            // Looked up once: finding a cached statement hashes its whole text.
            let upsert = changes.upserted.isEmpty ? nil : try db.cachedStatement(sql: TaskRecord.upsertSQL)
            var segmentStatements = SegmentStatements(db)
            for task in changes.upserted {
                try TaskRecord.upsert(task, session: session, with: upsert!, db: db, optionsText: &optionsText)
                try writeSegments(task.url, task.segments, db, &segmentStatements)
            }
            // Only the segments: a task's received count is their sum, restored from them on
            // load. Rewriting the task rows too put a page of the big table per download into
            // every checkpoint.
            for (url, segments) in changes.progress {
                try writeSegments(url, segments, db, &segmentStatements)
            }
            if let settings = changes.settings {
                try SettingsRecord.save(settings, db, session: session)
            }
            if let layout = changes.manualLayout {
                try writeLayout(layout, db)
            }
            for url in changes.purgesBegun {
                try db.execute(sql: "INSERT OR IGNORE INTO pendingPurge (session, url) VALUES (?, ?)", arguments: [session, url])
            }
            for url in changes.purgesEnded {
                try db.execute(sql: "DELETE FROM pendingPurge WHERE session = ? AND url = ?", arguments: [session, url])
            }
            try more?(db)
        } } } }
    }

    /// Upserts a task's segments in one statement and drops rows beyond the new count (a split
    /// adds segments; a restart from zero leaves one). A checkpoint runs this for every active
    /// download on the event loop, so it is two statements per task at most, one when the
    /// count is the one this store last wrote.
    func writeSegments(_ url: String, _ segments: [Segment], _ db: Database, _ statements: inout SegmentStatements) throws {
        if !segments.isEmpty {
            var row = RowWriter(try statements.upsert(count: segments.count), db)
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
            var row = RowWriter(try statements.dropTail(), db)
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

    /// Closes the file now, as the end of the process would: SQLite folds the WAL into the
    /// file (synced) and removes it. For a command that ends without freeing its objects.
    public func close() throws {
        try dbQueue.close()
    }

    // MARK: - Sessions

    // These act on the file as a whole, not on one session: a damaged file is reported and
    // left for the next tdl that opens a session in it.

    /// Names of every session in this database, with their task counts.
    public static func sessions(path: String) throws -> [(name: String, tasks: Int)] {
        try reported(path) {
            try open(path, writing: false).read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT session, count(*) FROM task GROUP BY session
                    UNION SELECT session, 0 FROM setting WHERE session NOT IN (SELECT session FROM task) GROUP BY session
                    ORDER BY 1
                    """)
                return rows.map { ($0[0], $0[1]) }
            }
        }
    }

    /// Forgets a session's records. Downloaded files are never touched.
    public static func destroySession(_ name: String, path: String) throws {
        try reported(path) {
            try open(path).write { db in
                for table in ["task", "segment", "layoutSection", "layoutRow", "setting", "pendingPurge"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE session = ?", arguments: [name])
                }
            }
        }
    }
}
