import GRDB

/// The segment table's statements for one commit (an upsert per segment count, the drop of a
/// tail), each looked up once: finding a cached statement builds and hashes its whole text,
/// and a commit writes the segments of hundreds of tasks.
struct SegmentStatements {
    private let db: Database
    private var upserts: [Int: Statement] = [:]
    private var dropTailStatement: Statement?

    init(_ db: Database) { self.db = db }

    /// Writes `count` segments of one task, each `(session, url, position, start, end, done)`.
    mutating func upsert(count: Int) throws -> Statement {
        if let statement = upserts[count] { return statement }
        let rows = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
        let statement = try db.cachedStatement(sql: """
            INSERT INTO segment (session, url, position, start, "end", done) VALUES \(rows)
            ON CONFLICT(session, url, position) DO UPDATE SET start = excluded.start, "end" = excluded."end", done = excluded.done
            """)
        upserts[count] = statement
        return statement
    }

    /// Drops a task's segments from a position on: `(session, url, position)`.
    mutating func dropTail() throws -> Statement {
        if let dropTailStatement { return dropTailStatement }
        let statement = try db.cachedStatement(sql: "DELETE FROM segment WHERE session = ? AND url = ? AND position >= ?")
        dropTailStatement = statement
        return statement
    }
}
