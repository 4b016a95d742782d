import GRDB

/// One transaction of a commit, begun and ended with cached statements: GRDB's
/// `inTransaction` compiles BEGIN and COMMIT anew each time, a twentieth of the CPU of
/// 500 small downloads, which commit forty-odd times.
enum CommitTransaction {
    /// Runs `body` in an IMMEDIATE transaction (as GRDB's writers do), committed when it
    /// returns and rolled back when it or the COMMIT throws; the first error is thrown.
    static func run(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            // SQLite may have rolled back already (a full disk, an I/O error).
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }
}
