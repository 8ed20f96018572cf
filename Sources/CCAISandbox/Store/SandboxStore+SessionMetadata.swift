import CCAIWire
import Foundation

extension SandboxStore {
    /// What the store knows of an ended chat or call for its session metadata
    /// (``SessionMetadataExports``): the session, its end user, its first agent's arrival,
    /// its messages' first and last times, its rating and its smart actions.
    struct SessionFacts: Sendable {
        enum Session: Sendable {
            /// A chat, with when its first agent came and what the Apps API's status
            /// table reads (``AppsChatStatusMapping``).
            case chat(ChatResponse, assignedAt: Double?, apps: AppsChatFacts)
            case call(CallResponse)
        }

        var session: Session
        var endUser: EndUser?
        var firstMessageAt: Double?
        var lastMessageAt: Double?
        var rating: (value: Int, feedback: String?, at: Double)?
        var smartActions: [SmartAction]
    }

    /// The facts of ended chat `id`; nil when there is no such chat or it has not ended.
    func endedChatFacts(id: Int) throws -> SessionFacts? {
        guard let chat = try chats(where: "id = ? AND status = 'ended'", [.integer(Int64(id))]).first,
            let row = try database.query("SELECT assigned_at, end_user_id FROM chats WHERE id = ?",
                                         [.integer(Int64(id))]).first
        else { return nil }
        var assignedAt: Double?
        if case .real(let value) = row[0] { assignedAt = value }
        let times = try database.query("SELECT min(created_at), max(created_at) FROM messages WHERE chat_id = ?", [.integer(Int64(id))])
            .first
        return SessionFacts(
            session: .chat(chat, assignedAt: assignedAt, apps: try appsChatFacts(chatID: id)),
            endUser: try row[1].integerValue.flatMap { try endUser(id: Int($0)) },
            firstMessageAt: times.flatMap { Self.real($0[0]) }, lastMessageAt: times.flatMap { Self.real($0[1]) },
            rating: try rating(.chats, id: id), smartActions: try smartActions(session: CommunicationRouter(id: id, type: .chat)))
    }

    /// The facts of ended (or failed) call `id`; nil when there is no such call or it is in
    /// progress.
    func endedCallFacts(id: Int) throws -> SessionFacts? {
        guard let call = try call(id: id), call.status.isFinished else { return nil }
        return SessionFacts(session: .call(call), endUser: try callOwner(id: id).flatMap { try endUser(id: $0) },
                            rating: try rating(.calls, id: id), smartActions: try smartActions(session: CommunicationRouter(id: id, type: .call)))
    }

    /// The ids of the ended chats (`.chat`) or finished calls after `after`, ascending, at
    /// most `limit`.
    func endedSessionIDs(_ type: CommunicationRouter.CommunicationType, after: Int, limit: Int) throws -> [Int] {
        let sql = type == .chat
            ? "SELECT id FROM chats WHERE status = 'ended' AND id > ? ORDER BY id LIMIT ?"
            : "SELECT id FROM calls WHERE status IN ('ended', 'failed') AND id > ? ORDER BY id LIMIT ?"
        return try database.query(sql, [.integer(Int64(after)), .integer(Int64(limit))]).compactMap { $0[0].integerValue.map(Int.init) }
    }

    private func rating(_ type: CommunicationType, id: Int) throws -> (value: Int, feedback: String?, at: Double)? {
        guard let row = try database.query("SELECT rating, feedback, created_at FROM ratings WHERE communication_type = ? "
                                           + "AND communication_id = ?", [.text(type.rawValue), .integer(Int64(id))]).first,
            let value = row[0].integerValue, let at = Self.real(row[2])
        else { return nil }
        return (Int(value), row[1].textValue, at)
    }

    private static func real(_ value: SQLiteValue) -> Double? {
        if case .real(let number) = value { return number }
        return nil
    }
}
