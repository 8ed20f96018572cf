@testable import CCAISandbox
import CCAIWire
import Foundation
import Testing

/// A full disk is the sandbox being unavailable for a while, not a bug (issue 38, item 12:
/// it answered 500 `SQLite error 13` while `/healthz` said ok).
@Suite struct StorageRoomTests {
    /// SQLite's own "database or disk is full" (here from `max_page_count`, as a full disk
    /// gives it): a 503 `unavailable` with Retry-After, and other SQLite errors stay 500s.
    @Test func aFullStoreAnswers503WithRetryAfter() async throws {
        let database = try SQLiteDatabase(path: nil)
        try database.execute("CREATE TABLE notes (body BLOB)")
        try database.execute("PRAGMA max_page_count = 8")
        var full: (any Error)?
        do {
            for _ in 0..<64 { try database.run("INSERT INTO notes (body) VALUES (?)", [.blob(Data(count: 4096))]) }
        } catch { full = error }
        let failure = try #require(full as? SQLiteError)
        #expect(failure.code & 0xFF == 13 && failure.isStorageFailure, "\(failure)")
        var router = HTTPRouter()
        router.add("POST", "/notes", authentication: .none) { _ in throw failure }
        router.add("POST", "/broken", authentication: .none) { _ in throw SQLiteError(code: 19, message: "constraint failed") }
        let answer = await router.respond(to: HTTPRequest(method: "POST", path: "/notes"))
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 503 && answer.headers["Retry-After"] == "30" && text.contains("\"unavailable\"")
                && text.contains("disk is full or failing"), "\(answer.status) \(text)")
        #expect(await router.respond(to: HTTPRequest(method: "POST", path: "/broken")).status == 500)
        #expect(HTTPError(storage: SQLiteError(code: 778, message: "disk I/O error")) != nil, "SQLITE_IOERR_WRITE")
    }

    /// `/healthz` says the sandbox is unavailable while its store's file system is short of
    /// room, so that a load balancer stops sending it work.
    @Test func healthSaysUnavailableWhileTheDiskIsShortOfRoom() async throws {
        func health(_ room: StorageRoom) async -> HTTPResponse {
            var router = HTTPRouter()
            HealthRoutes(room: room).register(in: &router)
            return await router.respond(to: HTTPRequest(method: "GET", path: "/healthz"))
        }
        let short = await health(StorageRoom(directory: "/data", freeBytes: { _ in 3 << 20 }))
        #expect(short.status == 503 && short.headers["Retry-After"] == "30"
                && String(decoding: short.body, as: UTF8.self).contains("3 MiB free"), "\(short.status)")
        #expect(await health(StorageRoom(directory: "/data", freeBytes: { _ in 1 << 30 })).status == 200)
        #expect(await health(StorageRoom(directory: nil)).status == 200, "a store in memory")
        let real = StorageRoom(directory: FileManager.default.temporaryDirectory.path)
        #expect(StorageRoom.freeBytes(at: real.directory!) != nil)
    }
}
