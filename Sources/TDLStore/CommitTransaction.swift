import GRDB

/// One transaction of a commit, begun and ended with cached statements: GRDB's
/// `inTransaction` compiles BEGIN and COMMIT for each transaction, and 500 small downloads
/// commit forty-odd times.
enum CommitTransaction {
    /// Runs `body` in an IMMEDIATE transaction (as GRDB's writers do), committed when it
    /// returns and rolled back when it or the COMMIT throws; the first error is thrown.
    /// `body` must let its errors through: after one, SQLite may have rolled back already,
    /// and what followed would be saved statement by statement.
    static func run(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            try body()
            // SQLite rolled back on its own (a full disk, an I/O error, a trigger's ROLLBACK)
            // under an error the body did not pass on: nothing of the commit is saved.
            guard db.isInsideTransaction else {
                throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back")
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            try? db.rollback()
            throw error
        }
    }
}
