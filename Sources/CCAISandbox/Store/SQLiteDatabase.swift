import CSQLite
import Foundation
import Timekeeping

/// A value stored in or read from SQLite.
public enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var integerValue: Int64? { if case .integer(let i) = self { return i } else { return nil } }
    public var textValue: String? { if case .text(let t) = self { return t } else { return nil } }
    public var blobValue: Data? { if case .blob(let b) = self { return b } else { return nil } }
}

/// A failed SQLite call, with SQLite's own message.
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    public var code: Int32
    public var message: String
    public var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection in WAL mode with full synchronous writes: a statement that
/// returned has reached the disk. Not thread-safe: keep it behind one owner (an actor).
///
/// ```swift
/// let database = try SQLiteDatabase(path: "/var/lib/ccai/sandbox.sqlite")
/// try database.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)")
/// try database.run("INSERT INTO notes (body) VALUES (?)", [.text("hello")])
/// let rows = try database.query("SELECT id, body FROM notes")
/// ```
public final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// Told how long each statement of ``run(_:_:)`` and the queries took, in seconds
    /// (what `--metrics` shows as the store's latency); nil times nothing.
    public var onStatement: (@Sendable (Double) -> Void)?

    /// Opens (creating it if needed) the database at `path`, or an in-memory one for nil.
    public init(path: String?) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let status = sqlite3_open_v2(path ?? ":memory:", &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: "\(path ?? ":memory:"): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
        if path != nil { try execute("PRAGMA journal_mode = WAL") }
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// The journal mode in force (`"wal"` for files).
    public var journalMode: String {
        ((try? query("PRAGMA journal_mode"))?.first?.first?.textValue) ?? ""
    }

    /// Runs one or more statements without parameters.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError(code: sqlite3_errcode(handle), message: message)
        }
    }

    /// Runs one statement with `parameters`; returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ parameters: [SQLiteValue] = []) throws -> Int {
        try timed {
            let statement = try prepared(sql, parameters)
            defer { sqlite3_reset(statement) }
            let status = sqlite3_step(statement)
            guard status == SQLITE_DONE || status == SQLITE_ROW else { throw lastError(status) }
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs a query; returns its rows.
    public func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try timed {
            let statement = try prepared(sql, parameters)
            defer { sqlite3_reset(statement) }
            var rows: [[SQLiteValue]] = []
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { break }
                guard status == SQLITE_ROW else { throw lastError(status) }
                rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
            }
            return rows
        }
    }

    /// Runs a query and hands its rows to `row` one at a time, until it returns false: a
    /// caller that stops early never reads the rest.
    public func query(_ sql: String, _ parameters: [SQLiteValue] = [], each row: ([SQLiteValue]) throws -> Bool) throws {
        try timed {
            let statement = try prepared(sql, parameters)
            defer { sqlite3_reset(statement) }
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { return }
                guard status == SQLITE_ROW else { throw lastError(status) }
                guard try row((0..<sqlite3_column_count(statement)).map { column(statement, $0) }) else { return }
            }
        }
    }

    /// Runs `body`, telling ``onStatement`` how long it took when there is one.
    private func timed<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let onStatement else { return try body() }
        let stopwatch = Stopwatch()
        defer { onStatement(stopwatch.seconds) }
        return try body()
    }

    /// The rowid of the last insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    // MARK: - Statements

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func prepared(_ sql: String, _ parameters: [SQLiteValue]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
            sqlite3_clear_bindings(statement)
        } else {
            var created: OpaquePointer?
            let status = sqlite3_prepare_v2(handle, sql, -1, &created, nil)
            guard status == SQLITE_OK, let created else { throw lastError(status) }
            statements[sql] = created
            statement = created
        }
        guard Int(sqlite3_bind_parameter_count(statement)) == parameters.count else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(parameters.count) parameters for \(sql)")
        }
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch parameter {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let value): status = sqlite3_bind_int64(statement, index, value)
            case .real(let value): status = sqlite3_bind_double(statement, index, value)
            case .text(let value):
                // Bound with its length: a NUL inside the text is kept, never an end.
                let bytes = Array(value.utf8) + [0]
                guard bytes.count <= Int(Int32.max) else { throw SQLiteError(code: SQLITE_TOOBIG, message: "a text of \(bytes.count) bytes") }
                status = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text(statement, index, $0.baseAddress, Int32(buffer.count - 1), SQLiteDatabase.transient)
                    }
                }
            case .blob(let value):
                status = value.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), SQLiteDatabase.transient)
                }
            }
            guard status == SQLITE_OK else { throw lastError(status) }
        }
        return statement
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func lastError(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }
}
