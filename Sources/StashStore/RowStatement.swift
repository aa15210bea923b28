import CSQLite
import GRDB

/// One of the registry's write statements, run with each value bound straight through
/// SQLite's C API. GRDB's `StatementArguments` box every value as an existential and convert it
/// to a `DatabaseValue` before binding: with a record written about three times per download,
/// that was a quarter of stashd's memory allocations over 2,000 single-file downloads (540 a
/// download before, 417 after; bench/HISTORY.md, "2026-11-27 09:00 session"). The statement
/// stays GRDB's, prepared once, cached by the connection and finalized with it; GRDB
/// documents `sqliteStatement` for the calls it does not wrap.
///
/// The bytes of a row's text and blob values are gathered in one buffer, kept for the next rows,
/// and bound without a copy just before the row is written: bound with a copy
/// (`SQLITE_TRANSIENT`), each value was an allocation inside SQLite, 76 of them a download over
/// 2,000 single-file downloads (bench/HISTORY.md, "2026-11-28 15:00 session").
///
/// `add` binds the next parameter, in the statement's order; `run` executes the statement once
/// and readies it for the next row. A failed bind is kept and thrown by `run`: the one place
/// this type turns SQLite's codes into errors, GRDB's `DatabaseError`, which `Registry` names
/// for its caller (a full disk among them) as it does GRDB's own.
struct RowStatement {
    /// A text or blob parameter whose bytes are `bytes[start..<start + count]`.
    private struct Bytes {
        let index: Int32
        let start: Int
        let count: Int
        let isText: Bool
    }

    private let statement: OpaquePointer
    private let connection: OpaquePointer?
    private var index: Int32 = 0
    private var failure = SQLITE_OK
    private var bytes: [UInt8] = []
    private var pending: [Bytes] = []

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql).sqliteStatement
        connection = db.sqliteConnection
        // GRDB leaves a statement it ran un-reset until its next run, and SQLite refuses a bind
        // to it then (SQLITE_MISUSE): the delete of a download's files runs through both.
        sqlite3_reset(statement)
    }

    mutating func add(_ value: String) {
        index += 1
        var text = value
        text.withUTF8 { utf8 in
            pending.append(Bytes(index: index, start: bytes.count, count: utf8.count, isText: true))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func add(_ value: String?) {
        if let value { add(value) } else { addNull() }
    }

    mutating func add(_ value: Int64) {
        index += 1
        note(sqlite3_bind_int64(statement, index, value))
    }

    mutating func add(_ value: Int64?) {
        if let value { add(value) } else { addNull() }
    }

    mutating func add(_ value: Int) {
        add(Int64(value))
    }

    mutating func add(_ value: Int?) {
        if let value { add(Int64(value)) } else { addNull() }
    }

    /// As GRDB stores a `Bool`: the integer 0 or 1.
    mutating func add(_ value: Bool) {
        add(value ? 1 as Int64 : 0)
    }

    /// A blob; no bytes are NULL, as the registry stores an empty value it does not keep.
    mutating func add(blob value: [UInt8]) {
        guard !value.isEmpty else { return addNull() }
        index += 1
        pending.append(Bytes(index: index, start: bytes.count, count: value.count, isText: false))
        bytes.append(contentsOf: value)
    }

    mutating func addNull() {
        index += 1
        note(sqlite3_bind_null(statement, index))
    }

    /// Executes the statement with the values added since the last run.
    mutating func run() throws {
        defer {
            index = 0
            failure = SQLITE_OK
            bytes.removeAll(keepingCapacity: true)
            pending.removeAll(keepingCapacity: true)
        }
        guard failure == SQLITE_OK else { throw error(failure) }
        let (statement, pending) = (self.statement, self.pending)
        let failed: DatabaseError? = bytes.withUnsafeBufferPointer { buffer in
            // The buffer is fixed only inside this closure: bound, run and unbound here.
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            for value in pending {
                let start = buffer.baseAddress.map { UnsafeRawPointer($0 + value.start) }
                let code = value.isText
                    ? csqlite_bind_text_static(statement, value.index, start?.assumingMemoryBound(to: CChar.self), UInt64(value.count))
                    : csqlite_bind_blob_static(statement, value.index, start, UInt64(value.count))
                if code != SQLITE_OK { return error(code) }
            }
            // The message is the connection's last: read before the reset, which may set another.
            let code = sqlite3_step(statement)
            return code == SQLITE_DONE ? nil : error(code)
        }
        if let failed { throw failed }
    }

    private mutating func note(_ code: Int32) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) })
    }
}
