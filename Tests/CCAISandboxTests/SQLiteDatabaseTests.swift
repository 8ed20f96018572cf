import CCAISandbox
import Foundation
import Testing

@Suite struct SQLiteDatabaseTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString).sqlite").path
    }

    @Test func storesAndReadsEveryType() throws {
        let database = try SQLiteDatabase(path: nil)
        try database.execute("CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT, score REAL, photo BLOB, note TEXT)")
        try database.run("INSERT INTO things (name, score, photo, note) VALUES (?, ?, ?, ?)",
                         [.text("Ana ✓"), .real(4.5), .blob(Data([0, 1, 0xFF])), .null])
        #expect(database.lastInsertRowID == 1)
        let rows = try database.query("SELECT id, name, score, photo, note FROM things WHERE id = ?", [.integer(1)])
        #expect(rows == [[.integer(1), .text("Ana ✓"), .real(4.5), .blob(Data([0, 1, 0xFF])), .null]])
        #expect(try database.run("UPDATE things SET score = ? WHERE id = ?", [.real(5), .integer(1)]) == 1)
        #expect(try database.query("SELECT score FROM things") == [[.real(5)]])
    }

    @Test func transactionsRollBackOnErrors() throws {
        let database = try SQLiteDatabase(path: nil)
        try database.execute("CREATE TABLE users (identifier TEXT PRIMARY KEY)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.transaction {
                try database.run("INSERT INTO users VALUES (?)", [.text("a")])
                throw Abort()
            }
        }
        #expect(try database.query("SELECT count(*) FROM users") == [[.integer(0)]])
        #expect(try database.transaction { try database.run("INSERT INTO users VALUES (?)", [.text("a")]) } == 1)
        #expect(throws: SQLiteError.self) { try database.run("INSERT INTO users VALUES (?)", [.text("a")]) }
    }

    @Test func filesUseWALAndKeepEverythingAcrossReopening() throws {
        let path = temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let database = try SQLiteDatabase(path: path)
            #expect(database.journalMode == "wal")
            try database.execute("CREATE TABLE events (body TEXT)")
            for n in 1...50 { try database.run("INSERT INTO events VALUES (?)", [.text("event \(n)")]) }
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.query("SELECT count(*) FROM events") == [[.integer(50)]])
    }

    @Test func errorsCarrySQLitesMessage() throws {
        let database = try SQLiteDatabase(path: nil)
        #expect(throws: SQLiteError.self) { try database.query("SELECT * FROM missing") }
        do {
            _ = try database.query("SELEKT 1")
        } catch let error as SQLiteError {
            #expect(error.message.contains("syntax error"))
        }
        #expect(throws: SQLiteError.self) { try database.run("SELECT ?", []) }
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: "/nonexistent/folder/db.sqlite") }
    }
}
