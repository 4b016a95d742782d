import Foundation
import GRDB
import TDLCore

/// The rows of a few tasks of a session, for a command that changes only them (`tdl add URL`,
/// `tdl pause URL`…): the manager loads the settings and those tasks, carries the command out
/// as on the whole session, and only their rows are written. At a million tasks, reading
/// every row took seconds and most of a gigabyte for a change of one.
///
/// What the manager would ask of the other tasks is looked up by index: which task owns a
/// file path (`unloadedTasks(mayOwning:)`), and, arranged by hand, the top of the first
/// section, where added and restored tasks go.
public final class TaskRowStore: SessionStore {
    public let base: SQLiteSessionStore
    private let urls: [String]
    /// Arranged by hand: the loaded tasks the list showed at the last commit. A layout the
    /// manager commits is compared with it, and only the rows that came or went are written.
    private var listed: Set<String>?

    /// Nil when the command needs the whole session: a list arranged by hand whose layout was
    /// never saved (a load places every task in it), or settings that cannot be read here (the
    /// whole load then reports or recovers as it does).
    public init?(_ base: SQLiteSessionStore, urls: [String]) {
        let session = base.session
        let servable = try? base.dbQueue.read { db -> Bool in
            guard try SettingsRecord.load(db, session: session).arrangement.isManual else { return true }
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM layoutSection WHERE session = ?)", arguments: [session]) ?? false
        }
        guard servable == true else { return nil }
        self.base = base
        // `add` looks the URL up without surrounding blanks, the other commands as given. A
        // URL named twice is read once (`load` skips a row it has): no set of a million URLs
        // is built for the few that repeat.
        var lookups = urls
        for url in urls {
            let trimmed = url.trimmingWhitespace()
            if trimmed.startIndex != url.startIndex || trimmed.endIndex != url.endIndex { lookups.append(String(trimmed)) }
        }
        self.urls = lookups
    }

    public func load() throws -> SessionSnapshot {
        let session = base.session
        return try base.readMovingDamageAside {
            try base.dbQueue.read { db in try SQLiteSessionStore.explained(db) {
                // The task table's first and last pages, through its root: a new row goes there,
                // and damage on that path is found now and moved aside as a whole load finds it,
                // not by the commit. Damage elsewhere waits for a load that reads it.
                _ = try Row.fetchOne(db, sql: "SELECT (SELECT min(rowid) FROM task), (SELECT max(rowid) FROM task)")
                var snapshot = SessionSnapshot(settings: try SettingsRecord.load(db, session: session))
                let taskQuery = try db.cachedStatement(sql: "SELECT \(TaskRecord.selectColumns) FROM task WHERE session = ? AND url = ?")
                let segmentQuery = try db.cachedStatement(sql: """
                    SELECT start, "end", done FROM segment WHERE session = ? AND url = ? ORDER BY position
                    """)
                try PageCache.enlarged(db, forRows: urls.count) { for url in urls {
                    var lookup = RowWriter(taskQuery, db)
                    lookup.bind(session)
                    lookup.bind(url)
                    var found = false
                    try TaskRecord.decode(taskQuery.sqliteStatement, db: db.sqliteConnection) { task in
                        found = snapshot.tasks[task.url] == nil
                        if found { snapshot.insert(task) }
                    }
                    guard found else { continue }
                    let segments = try Row.fetchAll(segmentQuery, arguments: [session, url]).map {
                        Segment(start: $0[0], end: $0[1], done: $0[2])
                    }
                    snapshot.setSegments(SavedNumbers.segments(segments), of: url)
                } }
                if snapshot.settings.arrangement.isManual {
                    // One section of the loaded tasks: what the manager places goes on top of it,
                    // as it would on top of the first section of the whole list.
                    let shown = snapshot.tasks.values.filter { $0.deletedAt == nil }.map(\.url)
                    snapshot.manualLayout = ManualLayout(sections: [shown], titles: [""])
                    listed = Set(shown)
                }
                return snapshot
            } }
        }
    }

    public func commit(_ changes: SessionChanges) throws {
        guard let layout = changes.manualLayout, let before = listed else { return try base.commit(changes) }
        var changes = changes
        changes.manualLayout = nil
        let now = layout.sections.flatMap { $0 }
        let nowListed = Set(now)
        let gone = before.subtracting(nowListed)
        // Everything the manager places goes to the top of the first section, so what came is
        // the head of the list, in its order.
        let came = Array(now.prefix { !before.contains($0) })
        assert(came.count == nowListed.subtracting(before).count, "a task placed below the top of the list")
        let session = base.session
        try base.commit(changes, with: gone.isEmpty && came.isEmpty ? nil : { db in
            for url in gone {
                try db.execute(sql: "DELETE FROM layoutRow WHERE session = ? AND url = ?", arguments: [session, url])
            }
            guard !came.isEmpty else { return }
            // Rows need only be in order (a load reads them sorted): the new ones go above the
            // first section's smallest, and no other row is renumbered.
            let top = try Int.fetchOne(db, sql: "SELECT min(row) FROM layoutRow WHERE session = ? AND section = 0",
                                       arguments: [session]) ?? 0
            for (n, url) in came.enumerated() {
                try db.execute(sql: "INSERT OR REPLACE INTO layoutRow (session, url, section, row) VALUES (?, ?, 0, ?)",
                               arguments: [session, url, top - came.count + n])
            }
        })
        listed = nowListed
    }

    /// The tasks whose file name is the path's last part (or that part without `.part`), or
    /// that finished at exactly this path: every task whose file or part file can be there.
    public func unloadedTasks(mayOwning path: String) throws -> [DownloadTask] {
        let name = (path as NSString).lastPathComponent
        let stem = name.hasSuffix(".part") ? String(name.dropLast(5)) : name
        let session = base.session
        return try SQLiteSessionStore.reported(base.path) {
            try base.dbQueue.read { db in try SQLiteSessionStore.explained(db) {
                // Two indexed reads, not one OR that SQLite may answer with a scan.
                let query = try db.cachedStatement(sql: """
                    SELECT \(TaskRecord.selectColumns) FROM task WHERE session = ? AND fileName IN (?, ?)
                    UNION ALL
                    SELECT \(TaskRecord.selectColumns) FROM task WHERE session = ? AND completedPath = ?
                    """)
                try query.setArguments([session, name, stem, session, path])
                var found: [DownloadTask] = []
                try TaskRecord.decode(query.sqliteStatement, db: db.sqliteConnection) { found.append($0) }
                return found
            } }
        }
    }
}
