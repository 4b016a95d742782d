import GRDB

/// SQLite's page cache for work on many rows at once. Its default (about 2 MB) holds a few
/// hundred pages: inserting a million rows in the order of their URLs' hashes, the indexes'
/// pages were read back from the file and written out again for nearly every row.
enum PageCache {
    /// Fewer rows than this work within the default cache.
    static let manyRows = 10_000
    /// About 128 bytes of index pages per row (a million random URLs are 68 MB of the primary
    /// key's index), at most 128 MiB; SQLite takes the pages only as they are used.
    static func kibibytes(forRows rows: Int) -> Int { min(128 * 1024, rows / 8) }

    /// Runs `body` with a cache sized for `rows`, then gives the memory back: a running tdl
    /// keeps its connection open for hours.
    static func enlarged<T>(_ db: Database, forRows rows: Int, _ body: () throws -> T) throws -> T {
        guard rows >= manyRows else { return try body() }
        let before = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -\(kibibytes(forRows: rows))")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(before)") }
        return try body()
    }
}
