import GRDB
import GRDBSQLite

/// Binds one row's values (or a query's parameters) to a prepared statement by position through
/// SQLite's own calls, and runs it. GRDB's generic arguments box every value on the way in; for a batch of added tasks
/// that was most of the cost of saving them.
struct RowWriter {
    private let statement: OpaquePointer
    private let connection: OpaquePointer?
    private var position: Int32 = 0
    /// SQLite copies the bytes of a text: the Swift string's C view lives only during the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: Statement, _ db: Database) {
        self.statement = statement.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(self.statement)
    }

    mutating func bind(_ value: String?) {
        position += 1
        guard var value else { sqlite3_bind_null(statement, position); return }
        // The string's own UTF-8 bytes and their count: passed as a C string, each one would
        // be copied with a terminator first.
        _ = value.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would take for NULL.
            if bytes.isEmpty {
                sqlite3_bind_text(statement, position, "", 0, Self.transient)
            } else {
                sqlite3_bind_text(statement, position, bytes.baseAddress, Int32(bytes.count), Self.transient)
            }
        }
    }

    mutating func bind(_ value: Int64?) {
        position += 1
        if let value { sqlite3_bind_int64(statement, position, value) } else { sqlite3_bind_null(statement, position) }
    }

    mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

    mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    mutating func bind(_ value: Double?) {
        position += 1
        if let value { sqlite3_bind_double(statement, position, value) } else { sqlite3_bind_null(statement, position) }
    }

    /// Runs the statement once; every parameter must have been bound.
    func run() throws {
        precondition(position == sqlite3_bind_parameter_count(statement), "a parameter was left unbound")
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
        }
    }
}
