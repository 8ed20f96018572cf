import CCAIWire
import Foundation

/// What the Apps API needs beyond the SDK's tables: which chats a company's server started
/// (their events go out as webhooks; only those take the server's messages), and the facts
/// of a chat its published object shows.
extension SandboxStore {
    /// What a chat's published object shows that ``ChatResponse`` does not carry.
    struct AppsChatFacts: Sendable {
        /// Whether the company's server started the chat (`POST /apps/api/v1/chats`).
        var startedByServer: Bool
        /// When the end user last wrote; nil before their first message.
        var lastEndUserMessageAt: Double?
        /// The human agents and the virtual agents that wrote in the chat, first to last.
        var agentNames: [String]
        var virtualAgentNames: [String]
        /// Whether it was escalated from its virtual agent, by which option, to which channel.
        var escalated: Bool
        var escalationID: Int?
        var escalationChannel: String?
    }

    static func createAppsTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS apps_chats (
              chat_id INTEGER PRIMARY KEY REFERENCES chats(id),
              created_at REAL NOT NULL,
              webhook_status TEXT
            );
            """)
    }

    /// Records that the company's server started the chat.
    func markStartedByServer(chatID: Int, now: Date) throws {
        try database.run("INSERT OR IGNORE INTO apps_chats (chat_id, created_at) VALUES (?, ?)",
                         [.integer(Int64(chatID)), .real(now.timeIntervalSince1970)])
    }

    /// The chat `id` and its end user, whoever that is (the company's server may read every
    /// chat of the company).
    func anyChat(id: Int) throws -> (chat: ChatResponse, endUserID: Int)? {
        guard let owner = try database.query("SELECT end_user_id FROM chats WHERE id = ?", [.integer(Int64(id))])
            .first?.first?.integerValue
        else { return nil }
        return try chat(id: id, endUserID: Int(owner)).map { ($0, Int(owner)) }
    }

    /// For a chat the company's server started, the status its webhooks last told (nil:
    /// none yet), now replaced by `status`; nil for any other chat. One step, so two
    /// events of a chat never both tell it was created.
    func advanceWebhookStatus(chatID: Int, to status: String) throws -> WebhookStatusStep? {
        let id = SQLiteValue.integer(Int64(chatID))
        guard let row = try database.query("SELECT webhook_status FROM apps_chats WHERE chat_id = ?", [id]).first else { return nil }
        try database.run("UPDATE apps_chats SET webhook_status = ? WHERE chat_id = ?", [.text(status), id])
        return WebhookStatusStep(previous: row[0].textValue)
    }

    /// A server chat's status as its webhooks told it before this event.
    struct WebhookStatusStep {
        var previous: String?
    }

    /// Whether the company's server started the chat.
    func isStartedByServer(chatID: Int) throws -> Bool {
        try !database.query("SELECT 1 FROM apps_chats WHERE chat_id = ?", [.integer(Int64(chatID))]).isEmpty
    }

    func appsChatFacts(chatID: Int) throws -> AppsChatFacts {
        let id = SQLiteValue.integer(Int64(chatID))
        let lastWritten = try database.query(
            "SELECT max(created_at) FROM messages WHERE chat_id = ? AND sender_type = ?", [id, .text(ChatSenderType.endUser.rawValue)])
            .first?.first
        func writers(_ type: ChatSenderType) throws -> [String] {
            try database.query("""
                SELECT sender_name FROM messages WHERE chat_id = ? AND sender_type = ? AND sender_name IS NOT NULL
                GROUP BY sender_name ORDER BY min(sequence)
                """, [id, .text(type.rawValue)]).compactMap { $0[0].textValue }
        }
        let escalation = try database.query("SELECT escalated, escalation_channel, escalation_id FROM chats WHERE id = ?", [id]).first
        var lastEndUserMessageAt: Double?
        if case .real(let moment) = lastWritten { lastEndUserMessageAt = moment }
        return AppsChatFacts(startedByServer: try isStartedByServer(chatID: chatID), lastEndUserMessageAt: lastEndUserMessageAt,
                             agentNames: try writers(.agent), virtualAgentNames: try writers(.virtualAgent),
                             escalated: (escalation?[0].integerValue ?? 0) != 0, escalationID: escalation?[2].integerValue.map(Int.init),
                             escalationChannel: escalation?[1].textValue)
    }
}
