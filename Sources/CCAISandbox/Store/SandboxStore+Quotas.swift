import CCAIWire
import Foundation

/// What an end user has created lately (for `limits`), and the pruning of what is kept
/// past its retention.
extension SandboxStore {
    /// What a quota counts.
    enum QuotaCount {
        case chats
        case calls
        case uploads
        case uploadBytes
        case screenShares
        case storedBytes
    }

    /// The ledger of what end users send to be stored (`limits.stored_bytes_per_hour`):
    /// one row per request, kept for the hour a quota looks back.
    static func createQuotaTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS stored_bytes (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              bytes INTEGER NOT NULL,
              created_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS stored_bytes_by_user ON stored_bytes (end_user_id, created_at);
            """)
    }

    /// Counts `bytes` an end user had stored at `now` against their hourly quota.
    func recordStoredBytes(_ bytes: Int, endUserID: Int, now: Date) throws {
        try database.run("INSERT INTO stored_bytes (end_user_id, bytes, created_at) VALUES (?, ?, ?)",
                         [.integer(Int64(endUserID)), .integer(Int64(bytes)), .real(now.timeIntervalSince1970)])
    }

    /// How many chats, calls, uploads, upload bytes or screen shares `endUserID` created since `moment`.
    func count(_ what: QuotaCount, endUserID: Int, since moment: Date) throws -> Int {
        let sql: String
        switch what {
        case .chats:
            sql = "SELECT COUNT(*) FROM chats WHERE end_user_id = ? AND created_at > ?"
        case .calls:
            sql = "SELECT COUNT(*) FROM calls WHERE end_user_id = ? AND created_at > ?"
        case .uploads:
            sql = """
                SELECT COUNT(*) FROM messages m JOIN chats c ON c.id = m.chat_id
                WHERE c.end_user_id = ? AND m.sender_type = 'end_user' AND m.media_id IS NOT NULL AND m.created_at > ?
                """
        case .uploadBytes:
            sql = """
                SELECT COALESCE(SUM(x.size), 0) FROM messages m JOIN chats c ON c.id = m.chat_id JOIN media x ON x.id = m.media_id
                WHERE c.end_user_id = ? AND m.sender_type = 'end_user' AND m.created_at > ?
                """
        case .screenShares:
            sql = "SELECT COUNT(*) FROM screen_shares s JOIN chats c ON c.id = s.chat_id WHERE c.end_user_id = ? AND s.created_at > ?"
        case .storedBytes:
            sql = "SELECT COALESCE(SUM(bytes), 0) FROM stored_bytes WHERE end_user_id = ? AND created_at > ?"
        }
        let value = try database.query(sql, [.integer(Int64(endUserID)), .real(moment.timeIntervalSince1970)]).first?.first
        return Int(value?.integerValue ?? 0)
    }

    /// Deletes stored events and chat events older than `eventsBefore`, the file bytes of
    /// chats ended before `mediaBefore` (the messages stay, their files answer 404), the
    /// tokens expired by `now` and the quota ledger's rows older than an hour. Returns how
    /// many events (of both kinds) and files went.
    @discardableResult
    func prune(eventsBefore: Date, mediaBefore: Date, now: Date) throws -> (events: Int, media: Int) {
        try database.run("DELETE FROM end_user_tokens WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
        tokens.removeExpired(now: now)
        try database.run("DELETE FROM stored_bytes WHERE created_at <= ?", [.real(now.timeIntervalSince1970 - 3_600)])
        let events = try database.run("DELETE FROM events WHERE created_at < ?", [.real(eventsBefore.timeIntervalSince1970)])
            + database.run("DELETE FROM chat_events WHERE created_at < ?", [.real(eventsBefore.timeIntervalSince1970)])
        try database.run("DELETE FROM pushes WHERE sent_at < ?", [.real(eventsBefore.timeIntervalSince1970)])
        let media = try database.run("""
            DELETE FROM media WHERE chat_id IN (SELECT id FROM chats WHERE status = 'ended' AND ended_at < ?)
            """, [.real(mediaBefore.timeIntervalSince1970)])
        return (events, media)
    }
}
