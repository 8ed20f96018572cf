import CCAIWire
import Foundation

/// Smart actions: requested by agents or by a queue before the session, answered by the
/// end user's app.
extension SandboxStore {
    static func createSmartActionTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS smart_actions (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              type TEXT NOT NULL,
              status TEXT NOT NULL,
              pre_session INTEGER NOT NULL,
              requested_by TEXT,
              result TEXT,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS smart_actions_by_chat ON smart_actions (chat_id, id);
            """)
    }

    /// Records a request; it starts `requested`.
    func addSmartAction(chatID: Int, type: SmartActionType, preSession: Bool, requestedBy: String?, now: Date) throws
        -> SmartAction
    {
        try database.run(
            "INSERT INTO smart_actions (chat_id, type, status, pre_session, requested_by, created_at, updated_at) VALUES (?, ?, 'requested', ?, ?, ?, ?)",
            [.integer(Int64(chatID)), .text(type.rawValue), .integer(preSession ? 1 : 0), requestedBy.map { .text($0) } ?? .null,
             .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970)])
        return SmartAction(id: Int(database.lastInsertRowID), chatId: chatID, type: type, preSession: preSession,
                           requestedBy: requestedBy, createdAt: now.timeIntervalSince1970, updatedAt: now.timeIntervalSince1970)
    }

    /// A chat's smart action.
    func smartAction(id: Int, chatID: Int) throws -> SmartAction? {
        try smartActions(where: "id = ? AND chat_id = ?", [.integer(Int64(id)), .integer(Int64(chatID))]).first
    }

    /// A chat's smart actions, oldest first.
    func smartActions(chatID: Int) throws -> [SmartAction] {
        try smartActions(where: "chat_id = ? ORDER BY id", [.integer(Int64(chatID))])
    }

    /// Moves an action that is not final yet to `status`; nil when it is final already
    /// (or unknown).
    func updateSmartAction(id: Int, chatID: Int, status: SmartActionStatus, now: Date) throws -> SmartAction? {
        let changed = try database.run(
            "UPDATE smart_actions SET status = ?, updated_at = ? WHERE id = ? AND chat_id = ? AND status NOT IN ('finished', 'failed')",
            [.text(status.rawValue), .real(now.timeIntervalSince1970), .integer(Int64(id)), .integer(Int64(chatID))])
        return changed == 0 ? nil : try smartAction(id: id, chatID: chatID)
    }

    /// Merges `result` into the action's result (media ids are appended); nil when the
    /// action is final already.
    func addSmartActionResult(id: Int, chatID: Int, _ result: SmartActionResult, now: Date) throws -> SmartAction? {
        try database.transaction {
            guard var action = try smartAction(id: id, chatID: chatID), !action.status.isFinal else { return nil }
            var merged = action.result ?? SmartActionResult()
            merged.text = result.text ?? merged.text
            merged.verified = result.verified ?? merged.verified
            merged.screenShare = result.screenShare ?? merged.screenShare
            merged.declineReason = result.declineReason ?? merged.declineReason
            if let media = result.mediaIds { merged.mediaIds = (merged.mediaIds ?? []) + media }
            let text = String(decoding: try JSONEncoder().encode(merged), as: UTF8.self)
            try database.run("UPDATE smart_actions SET result = ?, updated_at = ? WHERE id = ?",
                             [.text(text), .real(now.timeIntervalSince1970), .integer(Int64(id))])
            action.result = merged
            action.updatedAt = now.timeIntervalSince1970
            return action
        }
    }

    private func smartActions(where condition: String, _ parameters: [SQLiteValue]) throws -> [SmartAction] {
        try database.query(
            "SELECT id, chat_id, type, status, pre_session, requested_by, result, created_at, updated_at FROM smart_actions WHERE \(condition)",
            parameters).compactMap { row in
            guard let id = row[0].integerValue, let chatID = row[1].integerValue, let type = row[2].textValue,
                let status = row[3].textValue.flatMap(SmartActionStatus.init(rawValue:)), case .real(let created) = row[7],
                case .real(let updated) = row[8]
            else { return nil }
            let result = try row[6].textValue.map { try JSONDecoder().decode(SmartActionResult.self, from: Data($0.utf8)) }
            return SmartAction(id: Int(id), chatId: Int(chatID), type: SmartActionType(rawValue: type) ?? .unknown,
                               status: status, preSession: row[4].integerValue == 1, requestedBy: row[5].textValue,
                               result: result, createdAt: created, updatedAt: updated)
        }
    }
}
