import CCAIWire
import Foundation

/// Smart actions: requested by agents or by a queue before the session, answered by the
/// end user's app.
extension SandboxStore {
    static func createSmartActionTables(in database: SQLiteDatabase) throws {
        let columns = Set(try database.query("PRAGMA table_info(smart_actions)").compactMap { $0[1].textValue })
        if !columns.isEmpty, !columns.contains("call_id") { try makeRoomForCallSmartActions(in: database) }
        try database.execute(smartActionTable)
    }

    private static let smartActionTable = """
        CREATE TABLE IF NOT EXISTS smart_actions (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          chat_id INTEGER REFERENCES chats(id),
          call_id INTEGER REFERENCES calls(id),
          type TEXT NOT NULL,
          status TEXT NOT NULL,
          pre_session INTEGER NOT NULL,
          requested_by TEXT,
          result TEXT,
          created_at REAL NOT NULL,
          updated_at REAL NOT NULL,
          CHECK ((chat_id IS NULL) <> (call_id IS NULL))
        );
        CREATE INDEX IF NOT EXISTS smart_actions_by_chat ON smart_actions (chat_id, id);
        CREATE INDEX IF NOT EXISTS smart_actions_by_call ON smart_actions (call_id, id);
        """

    /// A data folder written before calls had smart actions: its table, whose `chat_id`
    /// could not be null, is rebuilt with a `call_id`, every action kept with its id.
    private static func makeRoomForCallSmartActions(in database: SQLiteDatabase) throws {
        try database.transaction {
            try database.execute("ALTER TABLE smart_actions RENAME TO smart_actions_of_chats")
            try database.execute("DROP INDEX IF EXISTS smart_actions_by_chat")
            try database.execute(smartActionTable)
            try database.execute("""
                INSERT INTO smart_actions (id, chat_id, type, status, pre_session, requested_by, result, created_at, updated_at)
                  SELECT id, chat_id, type, status, pre_session, requested_by, result, created_at, updated_at FROM smart_actions_of_chats;
                DROP TABLE smart_actions_of_chats;
                """)
        }
    }

    /// The column that names a session of `router`'s kind.
    private static func sessionColumn(_ router: CommunicationRouter) -> String {
        router.type == .chat ? "chat_id" : "call_id"
    }

    /// Records a request in a chat or a call; it starts `requested`.
    func addSmartAction(session: CommunicationRouter, type: SmartActionType, preSession: Bool, requestedBy: String?, now: Date) throws
        -> SmartAction
    {
        try database.run(
            """
            INSERT INTO smart_actions (\(Self.sessionColumn(session)), type, status, pre_session, requested_by, created_at, updated_at)
              VALUES (?, ?, 'requested', ?, ?, ?, ?)
            """,
            [.integer(Int64(session.id)), .text(type.rawValue), .integer(preSession ? 1 : 0), requestedBy.map { .text($0) } ?? .null,
             .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970)])
        return SmartAction(id: Int(database.lastInsertRowID), router: session, type: type, preSession: preSession,
                           requestedBy: requestedBy, createdAt: now.timeIntervalSince1970, updatedAt: now.timeIntervalSince1970)
    }

    /// A session's smart action.
    func smartAction(id: Int, session: CommunicationRouter) throws -> SmartAction? {
        try smartActions(where: "id = ? AND \(Self.sessionColumn(session)) = ?", [.integer(Int64(id)), .integer(Int64(session.id))]).first
    }

    /// A session's smart actions, oldest first.
    func smartActions(session: CommunicationRouter) throws -> [SmartAction] {
        try smartActions(where: "\(Self.sessionColumn(session)) = ? ORDER BY id", [.integer(Int64(session.id))])
    }

    /// Moves an action that is not final yet to `status`; nil when it is final already
    /// (or unknown).
    func updateSmartAction(id: Int, session: CommunicationRouter, status: SmartActionStatus, now: Date) throws -> SmartAction? {
        let changed = try database.run(
            """
            UPDATE smart_actions SET status = ?, updated_at = ?
              WHERE id = ? AND \(Self.sessionColumn(session)) = ? AND status NOT IN ('finished', 'failed')
            """,
            [.text(status.rawValue), .real(now.timeIntervalSince1970), .integer(Int64(id)), .integer(Int64(session.id))])
        return changed == 0 ? nil : try smartAction(id: id, session: session)
    }

    /// Merges `result` into the action's result (media ids are appended); nil when the
    /// action is final already.
    func addSmartActionResult(id: Int, session: CommunicationRouter, _ result: SmartActionResult, now: Date) throws -> SmartAction? {
        try database.transaction {
            guard var action = try smartAction(id: id, session: session), !action.status.isFinal else { return nil }
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
            """
            SELECT id, chat_id, call_id, type, status, pre_session, requested_by, result, created_at, updated_at
              FROM smart_actions WHERE \(condition)
            """,
            parameters).compactMap { row in
            guard let id = row[0].integerValue, let type = row[3].textValue,
                let status = row[4].textValue.flatMap(SmartActionStatus.init(rawValue:)), case .real(let created) = row[8],
                case .real(let updated) = row[9]
            else { return nil }
            let router: CommunicationRouter
            if let callID = row[2].integerValue {
                router = CommunicationRouter(id: Int(callID), type: .call)
            } else if let chatID = row[1].integerValue {
                router = CommunicationRouter(id: Int(chatID), type: .chat)
            } else {
                return nil
            }
            let result = try row[7].textValue.map { try JSONDecoder().decode(SmartActionResult.self, from: Data($0.utf8)) }
            return SmartAction(id: Int(id), router: router, type: SmartActionType(rawValue: type) ?? .unknown,
                               status: status, preSession: row[5].integerValue == 1, requestedBy: row[6].textValue,
                               result: result, createdAt: created, updatedAt: updated)
        }
    }
}
