import CCAIWire
import Foundation

/// Screen share sessions of chats.
extension SandboxStore {
    static func createScreenShareTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS screen_shares (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              code TEXT NOT NULL,
              initiated_from TEXT NOT NULL,
              state TEXT NOT NULL,
              remote_control INTEGER NOT NULL DEFAULT 0,
              full_device INTEGER NOT NULL DEFAULT 0,
              agent TEXT,
              created_at REAL NOT NULL
            );
            """)
    }

    /// Creates a `pending` session with a fresh 6-digit code, unless the chat has one that
    /// has not ended (nil then).
    func createScreenShare(chatID: Int, initiatedFrom: ScreenShareInitiator, now: Date) throws -> ScreenShareResponse? {
        try database.transaction {
            guard try screenShares(where: "chat_id = ? AND state != 'ended'", [.integer(Int64(chatID))]).isEmpty else { return nil }
            let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            try database.run(
                "INSERT INTO screen_shares (chat_id, code, initiated_from, state, created_at) VALUES (?, ?, ?, 'pending', ?)",
                [.integer(Int64(chatID)), .text(code), .text(initiatedFrom.rawValue), .real(now.timeIntervalSince1970)])
            return try screenShare(id: Int(database.lastInsertRowID))
        }
    }

    func screenShare(id: Int) throws -> ScreenShareResponse? {
        try screenShares(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// The chat's latest session.
    func latestScreenShare(chatID: Int) throws -> ScreenShareResponse? {
        try screenShares(where: "chat_id = ? ORDER BY id DESC LIMIT 1", [.integer(Int64(chatID))]).first
    }

    /// Moves a session from one of `from` to `state` (and sets what is given); nil when it
    /// is in none of them.
    func moveScreenShare(id: Int, from: Set<ScreenShareServiceState>, to state: ScreenShareServiceState, agent: String? = nil,
                         remoteControl: Bool? = nil, fullDevice: Bool? = nil) throws -> ScreenShareResponse? {
        let allowed = from.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let changed = try database.run(
            """
            UPDATE screen_shares SET state = ?, agent = coalesce(?, agent), remote_control = coalesce(?, remote_control),
                   full_device = coalesce(?, full_device)
            WHERE id = ? AND state IN (\(allowed))
            """,
            [.text(state.rawValue), agent.map { .text($0) } ?? .null, remoteControl.map { .integer($0 ? 1 : 0) } ?? .null,
             fullDevice.map { .integer($0 ? 1 : 0) } ?? .null, .integer(Int64(id))])
        return changed == 0 ? nil : try screenShare(id: id)
    }

    private func screenShares(where condition: String, _ parameters: [SQLiteValue]) throws -> [ScreenShareResponse] {
        try database.query(
            "SELECT id, chat_id, code, initiated_from, state, remote_control, full_device, agent FROM screen_shares WHERE \(condition)",
            parameters).compactMap { row in
            guard let id = row[0].integerValue, let chatID = row[1].integerValue, let code = row[2].textValue,
                let initiator = row[3].textValue.flatMap(ScreenShareInitiator.init(rawValue:)),
                let state = row[4].textValue.flatMap(ScreenShareServiceState.init(rawValue:))
            else { return nil }
            return ScreenShareResponse(id: Int(id), code: code, communicationId: Int(chatID), communicationType: .chat,
                                       initiatedFrom: initiator, state: state, remoteControl: row[5].integerValue == 1,
                                       fullDevice: row[6].integerValue == 1, agent: row[7].textValue)
        }
    }
}
