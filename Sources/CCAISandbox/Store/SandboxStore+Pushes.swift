import CCAIWire
import Foundation

/// Push notifications: each end user's device tokens (one per type) and the pushes sent.
extension SandboxStore {
    static func createPushTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS push_tokens (
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              type TEXT NOT NULL,
              token TEXT NOT NULL,
              updated_at REAL NOT NULL,
              PRIMARY KEY (end_user_id, type)
            );
            CREATE INDEX IF NOT EXISTS push_tokens_by_token ON push_tokens (type, token);
            CREATE TABLE IF NOT EXISTS pushes (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL,
              type TEXT NOT NULL,
              token_suffix TEXT NOT NULL,
              payload TEXT NOT NULL,
              sent_at REAL NOT NULL
            );
            """)
    }

    /// Sets the end user's token of `type`, or clears it (nil). A device holds one end
    /// user at a time: a token another end user had registered is theirs no more (the
    /// app signed in as someone else), so no push of theirs reaches this device.
    func setPushToken(_ token: String?, type: PushTokenType, endUserID: Int, now: Date) throws {
        if let token {
            try database.transaction {
                try database.run("DELETE FROM push_tokens WHERE type = ? AND token = ? AND end_user_id != ?",
                                 [.text(type.rawValue), .text(token), .integer(Int64(endUserID))])
                try database.run("""
                    INSERT INTO push_tokens (end_user_id, type, token, updated_at) VALUES (?, ?, ?, ?)
                      ON CONFLICT (end_user_id, type) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at
                    """, [.integer(Int64(endUserID)), .text(type.rawValue), .text(token), .real(now.timeIntervalSince1970)])
            }
        } else {
            try database.run("DELETE FROM push_tokens WHERE end_user_id = ? AND type = ?", [.integer(Int64(endUserID)), .text(type.rawValue)])
        }
    }

    /// The end user's token of `type`, if one is registered.
    func pushToken(type: PushTokenType, endUserID: Int) throws -> String? {
        try database.query("SELECT token FROM push_tokens WHERE end_user_id = ? AND type = ?",
                           [.integer(Int64(endUserID)), .text(type.rawValue)]).first?.first?.textValue
    }

    /// Records a push sent to the end user's token of `type`.
    func recordPush(_ payload: PushPayload, type: PushTokenType, token: String, endUserID: Int, now: Date) throws -> PushRecord {
        let text = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let suffix = String(token.suffix(8))
        try database.run("INSERT INTO pushes (end_user_id, type, token_suffix, payload, sent_at) VALUES (?, ?, ?, ?, ?)",
                         [.integer(Int64(endUserID)), .text(type.rawValue), .text(suffix), .text(text), .real(now.timeIntervalSince1970)])
        return PushRecord(id: Int(database.lastInsertRowID), endUserId: endUserID, type: type, tokenSuffix: suffix, payload: payload,
                          sentAt: now.timeIntervalSince1970)
    }

    /// A page of the pushes sent, by id (the operator's view).
    func pushes(after: Int, limit: Int) throws -> [PushRecord] {
        try database.query("""
            SELECT id, end_user_id, type, token_suffix, payload, sent_at FROM pushes WHERE id > ? ORDER BY id LIMIT ?
            """, [.integer(Int64(after)), .integer(Int64(limit))]).compactMap { row in
            guard let id = row[0].integerValue, let user = row[1].integerValue,
                let type = row[2].textValue.flatMap(PushTokenType.init(rawValue:)), let suffix = row[3].textValue,
                let payload = row[4].textValue.flatMap({ try? JSONDecoder().decode(PushPayload.self, from: Data($0.utf8)) }),
                case .real(let sent) = row[5]
            else { return nil }
            return PushRecord(id: Int(id), endUserId: Int(user), type: type, tokenSuffix: suffix, payload: payload, sentAt: sent)
        }
    }
}
