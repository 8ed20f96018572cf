import CCAIWire
import Foundation

/// Every change of a chat's status: the statuses it may start from and the one it leads
/// to. The store's updates take their `WHERE status` from here, so the rules of a chat's
/// life are one table (a transition from elsewhere changes nothing and is nil).
enum ChatTransition: CaseIterable, Sendable {
    /// Its pre-session smart actions done, a `pending` chat joins its queue.
    case enqueue
    /// A human agent takes the chat: `assigned`, then `active`.
    case assign, activate
    /// A virtual agent takes a queued chat no human has: `active` at once.
    case takeByVirtualAgent
    /// The virtual agent's chat is queued again for a human.
    case escalate
    /// A cold transfer: queued on another queue.
    case transfer
    /// After a restart, a chat queued or with an agent goes back to its queue.
    case requeue
    /// By the end user, an agent or a timeout.
    case end

    var from: [ChatStatus] {
        switch self {
        case .enqueue: [.pending]
        case .assign, .activate, .transfer, .end: ChatStatus.inProgress
        case .takeByVirtualAgent: [.queued]
        case .escalate: [.active]
        case .requeue: [.queued, .assigned, .active]
        }
    }

    var to: ChatStatus {
        switch self {
        case .enqueue, .escalate, .transfer, .requeue: .queued
        case .assign: .assigned
        case .activate, .takeByVirtualAgent: .active
        case .end: .ended
        }
    }

    /// `status IN ('queued', 'assigned')`: the chat is in a status the transition starts from.
    func condition(column: String = "status") -> String { ChatStatus.condition(from, column: column) }
}

extension ChatStatus {
    /// Every status but `ended`.
    static let inProgress = allCases.filter { $0 != .ended }

    /// `status IN (...)` for the SQL of the store.
    static func condition(_ statuses: [ChatStatus], column: String = "status") -> String {
        "\(column) IN (" + statuses.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }
}

extension SandboxStore {
    /// Creates a chat (`queued`, or `pending` when pre-session smart actions come first),
    /// unless the end user has one in progress (then that one is returned as `.inProgress`).
    func createChat(endUserID: Int, menuID: Int, lang: String, status: ChatStatus = .queued, redaction: Bool,
                    screenShareable: Bool = false, session: ChatSessionData = ChatSessionData(),
                    postSession: PostSessionSettings = PostSessionSettings(), startedByServer: Bool = false, now: Date) throws
        -> ChatCreation
    {
        try database.transaction {
            if let existing = try currentChat(endUserID: endUserID) { return .inProgress(existing) }
            chatsCreated.withLock { $0 += 1 }
            try database.run(
                """
                INSERT INTO chats (end_user_id, menu_id, lang, status, redaction, screen_shareable, custom_data, is_verifiable,
                  display_order, post_session, post_session_required, post_session_opt_in, created_at)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.integer(Int64(endUserID)), .integer(Int64(menuID)), .text(lang), .text(status.rawValue), .integer(redaction ? 1 : 0),
                 .integer(screenShareable ? 1 : 0), .text(try session.customData.jsonText()), .integer(session.isVerifiable ? 1 : 0),
                 try Self.json(session.displayOrderInAdapter), try Self.json(postSession),
                 .integer(postSession.isFlowConfigured ? 1 : 0), .integer(postSession.optIn == true ? 1 : 0),
                 .real(now.timeIntervalSince1970)])
            guard let chat = try chat(id: Int(database.lastInsertRowID), endUserID: endUserID) else {
                throw SQLiteError(code: 0, message: "the chat vanished")
            }
            if startedByServer { try markStartedByServer(chatID: chat.id, now: now) }
            return .created(chat)
        }
    }

    enum ChatCreation {
        case created(ChatResponse)
        case inProgress(ChatResponse)
    }

    /// What chat `id`'s session carries for its agents (empty for a chat stored before
    /// the sandbox kept it); nil for an unknown chat.
    func sessionData(chatID id: Int) throws -> ChatSessionData? {
        guard let row = try database.query("SELECT custom_data, is_verifiable, display_order FROM chats WHERE id = ?",
                                           [.integer(Int64(id))]).first
        else { return nil }
        let order = row[2].textValue.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        return ChatSessionData(customData: (try? JSONValue(jsonText: row[0].textValue ?? "{}")) ?? [:],
                               isVerifiable: row[1].integerValue == 1, displayOrderInAdapter: order ?? [])
    }

    private static let chatColumns =
        "id, status, menu_id, lang, redaction, created_at, ended_at, ended_by, agent_name, virtual_agent_name, screen_shareable, "
        + "post_session_required, post_session_opt_in, post_session_status"

    func chats(where condition: String, _ parameters: [SQLiteValue]) throws -> [ChatResponse] {
        try database.query("SELECT \(SandboxStore.chatColumns) FROM chats WHERE \(condition)", parameters).compactMap { row in
            guard let id = row[0].integerValue, let status = row[1].textValue.flatMap(ChatStatus.init(rawValue:)),
                let menuID = row[2].integerValue, let lang = row[3].textValue, case .real(let created) = row[5]
            else { return nil }
            var ended: Double?
            if case .real(let value) = row[6] { ended = value }
            let postSessionRequired = row[11].integerValue == 1
            return ChatResponse(id: Int(id), status: status, menuId: Int(menuID), lang: lang,
                                agent: row[8].textValue.map { ChatAgent(name: $0) },
                                virtualAgent: row[9].textValue.map { ChatAgent(name: $0) },
                                postSessionRequired: postSessionRequired,
                                postSessionOptInRequired: postSessionRequired ? row[12].integerValue == 1 : nil,
                                postSessionTransferStatus: row[13].textValue.flatMap(PostSessionTransferStatus.init(rawValue:)),
                                redactionEnabled: row[4].integerValue == 1, createdAt: created, endedAt: ended,
                                endedBy: row[7].textValue.map(ChatEndedBy.init(rawValue:)), isSupportingScreenShare: row[10].integerValue == 1)
        }
    }

    /// The end user's chat that has not ended, if any.
    func currentChat(endUserID: Int) throws -> ChatResponse? {
        try chats(where: "end_user_id = ? AND \(ChatStatus.condition(ChatStatus.inProgress)) ORDER BY id DESC LIMIT 1", [.integer(Int64(endUserID))]).first
    }

    /// The end user's own chat with `id` (another user's chat is never found).
    func chat(id: Int, endUserID: Int) throws -> ChatResponse? {
        try chats(where: "id = ? AND end_user_id = ?", [.integer(Int64(id)), .integer(Int64(endUserID))]).first
    }

    /// Ends a chat; nil when it had already ended (or is not the user's).
    func endChat(id: Int, endUserID: Int, by: String, now: Date) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = '\(ChatTransition.end.to.rawValue)', ended_at = ?, ended_by = ? WHERE id = ? AND end_user_id = ? "
                + "AND \(ChatTransition.end.condition())",
            [.real(now.timeIntervalSince1970), .text(by), .integer(Int64(id)), .integer(Int64(endUserID))])
        return changed == 1 ? try chat(id: id, endUserID: endUserID) : nil
    }

    /// A page (from 1) of the end user's ended chats, newest first, and the page count.
    func previousChats(endUserID: Int, page: Int, perPage: Int) throws -> (chats: [ChatResponse], pages: Int) {
        let total = (try database.query("SELECT count(*) FROM chats WHERE end_user_id = ? AND status = 'ended'",
                                        [.integer(Int64(endUserID))]).first?.first?.integerValue) ?? 0
        let chats = try chats(where: "end_user_id = ? AND status = 'ended' ORDER BY id DESC LIMIT ? OFFSET ?",
                              [.integer(Int64(endUserID)), .integer(Int64(perPage)), .integer(Int64((page - 1) * perPage))])
        return (chats, max(1, Int((total + Int64(perPage) - 1) / Int64(perPage))))
    }

    /// Sessions waiting on every queue, queued chats and waiting calls together.
    func waitingCount() throws -> Int {
        let sql = "SELECT (SELECT count(*) FROM chats WHERE status = 'queued') + (SELECT count(*) FROM calls WHERE status = 'waiting')"
        return Int(try database.query(sql).first?.first?.integerValue ?? 0)
    }

    /// Sessions waiting per queue: queued chats, and waiting calls (what capacity and wait
    /// estimates count).
    func waitingCountsByChannel() throws -> (chats: [Int: Int], calls: [Int: Int]) {
        func counts(_ sql: String) throws -> [Int: Int] {
            var counts: [Int: Int] = [:]
            for row in try database.query(sql) {
                if let menu = row[0].integerValue, let count = row[1].integerValue { counts[Int(menu)] = Int(count) }
            }
            return counts
        }
        return (try counts("SELECT menu_id, count(*) FROM chats WHERE status = 'queued' GROUP BY menu_id"),
                try counts("SELECT menu_id, count(*) FROM calls WHERE status = 'waiting' GROUP BY menu_id"))
    }

    /// The chats queued on `menus` and waiting for a human agent, oldest first, with
    /// their end users.
    func queuedChats(menus: [Int]) throws -> [(chat: ChatResponse, endUserID: Int)] {
        guard !menus.isEmpty else { return [] }
        let list = menus.map(String.init).joined(separator: ", ")
        let chats = try chats(where: "status = 'queued' AND agent_name IS NULL AND menu_id IN (\(list)) ORDER BY id", [])
        return try chats.compactMap { chat in try chatOwner(id: chat.id).map { (chat, $0) } }
    }

    /// Moves a chat to `status` (not an ended one), with its agent (the first agent's
    /// arrival is its `assigned_at`); nil when it ended.
    func updateChat(id: Int, _ transition: ChatTransition, agent: String?, now: Date) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = ?, agent_name = coalesce(?, agent_name), "
                + "assigned_at = CASE WHEN ? IS NULL THEN assigned_at ELSE coalesce(assigned_at, ?) END "
                + "WHERE id = ? AND \(transition.condition())",
            [.text(transition.to.rawValue), agent.map { .text($0) } ?? .null, agent.map { .text($0) } ?? .null,
             .real(now.timeIntervalSince1970), .integer(Int64(id))])
        guard changed == 1 else { return nil }
        return try chats(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// A `pending` chat joins its queue; nil when it is not pending.
    func enqueuePendingChat(id: Int) throws -> ChatResponse? {
        let changed = try database.run("UPDATE chats SET status = '\(ChatTransition.enqueue.to.rawValue)' WHERE id = ? AND \(ChatTransition.enqueue.condition())",
                                       [.integer(Int64(id))])
        return changed == 0 ? nil : try chats(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// A chat's status, whoever owns it.
    func chatStatus(id: Int) throws -> ChatStatus? {
        try database.query("SELECT status FROM chats WHERE id = ?", [.integer(Int64(id))]).first?.first?.textValue
            .flatMap(ChatStatus.init(rawValue:))
    }

    /// A virtual agent takes a queued chat: active, with its virtual agent (the first
    /// agent's arrival is its `assigned_at`).
    func assignVirtualAgent(id: Int, name: String, now: Date) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = '\(ChatTransition.takeByVirtualAgent.to.rawValue)', virtual_agent_name = ?, "
                + "assigned_at = coalesce(assigned_at, ?) WHERE id = ? "
                + "AND \(ChatTransition.takeByVirtualAgent.condition()) AND agent_name IS NULL",
            [.text(name), .real(now.timeIntervalSince1970), .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Starts an escalation from the chat's virtual agent: the chat is queued again for a
    /// human. Nil unless a virtual agent has the chat and no escalation has started.
    func startEscalation(id: Int, option: (id: Int, channel: String?)?) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET status = '\(ChatTransition.escalate.to.rawValue)', escalated = 1, escalation_id = ?, escalation_channel = ?
            WHERE id = ? AND \(ChatTransition.escalate.condition()) AND virtual_agent_name IS NOT NULL AND agent_name IS NULL
              AND escalated = 0
            """, [option.map { .integer(Int64($0.id)) } ?? .null, option?.channel.map { .text($0) } ?? .null, .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Commits an option to an escalation under way (started, no human yet). Nil otherwise.
    func updateEscalation(id: Int, option: (id: Int, channel: String?)) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET escalation_id = ?, escalation_channel = ?
            WHERE id = ? AND \(ChatStatus.condition(ChatStatus.inProgress)) AND escalated = 1 AND agent_name IS NULL
            """, [.integer(Int64(option.id)), option.channel.map { .text($0) } ?? .null, .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Moves a chat in progress to another queue (a cold transfer): queued there, with no
    /// agent, redacted as that queue says, with its post-session settings.
    func transferChat(id: Int, toMenu menuID: Int, redaction: Bool, postSession: PostSessionSettings) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET menu_id = ?, redaction = ?, status = '\(ChatTransition.transfer.to.rawValue)', agent_name = NULL,
              virtual_agent_name = NULL,
              escalated = 0, escalation_id = NULL, escalation_channel = NULL, post_session = ?, post_session_required = ?,
              post_session_opt_in = ?
            WHERE id = ? AND \(ChatTransition.transfer.condition())
            """, [.integer(Int64(menuID)), .integer(redaction ? 1 : 0), try Self.json(postSession),
                  .integer(postSession.isFlowConfigured ? 1 : 0), .integer(postSession.optIn == true ? 1 : 0), .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// A chat an earlier run left queued or with an agent goes back to its queue:
    /// `queued`, without the agent or virtual agent that went with that run. An escalated
    /// chat keeps `escalated`, so a human takes it, not its virtual agent again; `toHuman`
    /// says so (a human had it, or it was escalated). Nil otherwise: a `pending` chat
    /// still waits for its pre-session smart actions and the app's `enqueue`.
    func requeueChat(id: Int) throws -> (chat: ChatResponse, toHuman: Bool)? {
        try database.transaction {
            guard let row = try database.query("""
                SELECT agent_name, escalated FROM chats WHERE id = ? AND \(ChatTransition.requeue.condition())
                """,
                                               [.integer(Int64(id))]).first
            else { return nil }
            let toHuman = row[0].textValue != nil || row[1].integerValue == 1
            try database.run("UPDATE chats SET status = '\(ChatTransition.requeue.to.rawValue)', agent_name = NULL, virtual_agent_name = NULL "
                             + "WHERE id = ?",
                             [.integer(Int64(id))])
            return try chats(where: "id = ?", [.integer(Int64(id))]).first.map { ($0, toHuman) }
        }
    }

    /// The ended chats whose post-session phase is `ready` (a previous run's, at start),
    /// with their end users.
    func chatsInReadyPostSession() throws -> [(chat: ChatResponse, endUserID: Int)] {
        try chats(where: "status = 'ended' AND post_session_status = 'ready' ORDER BY id", []).compactMap { chat in
            try chatOwner(id: chat.id).map { (chat, $0) }
        }
    }

    /// Every chat not ended (a previous run's, at start), with its end user.
    func chatsInProgress() throws -> [(id: Int, endUserID: Int)] {
        try database.query("SELECT id, end_user_id FROM chats WHERE \(ChatStatus.condition(ChatStatus.inProgress)) ORDER BY id")
            .compactMap { row in
            guard let id = row[0].integerValue, let user = row[1].integerValue else { return nil }
            return (Int(id), Int(user))
        }
    }

    /// The `limit` newest chats not ended that an agent or a virtual agent has, newest first,
    /// with their end users (the console's; those still waiting are in their queues).
    func latestChatsWithAnAgent(limit: Int) throws -> [(chat: ChatResponse, endUserID: Int)] {
        try chats(where: "\(ChatStatus.condition(ChatStatus.inProgress)) AND (agent_name IS NOT NULL OR virtual_agent_name IS NOT NULL) "
                  + "ORDER BY id DESC LIMIT ?", [.integer(Int64(limit))])
            .compactMap { chat in try chatOwner(id: chat.id).map { (chat, $0) } }
    }

    /// The chats in progress whose end user has written nothing since `moment` (counting
    /// from the chat's start), with their end users.
    func chatsIdle(since moment: Date) throws -> [(id: Int, endUserID: Int)] {
        try database.query("""
            SELECT c.id, c.end_user_id FROM chats c WHERE \(ChatStatus.condition(ChatStatus.inProgress, column: "c.status")) AND coalesce(
              (SELECT max(m.created_at) FROM messages m WHERE m.chat_id = c.id AND m.sender_type = 'end_user'),
              c.created_at) < ?
            """, [.real(moment.timeIntervalSince1970)]).compactMap { row in
            guard let id = row[0].integerValue, let user = row[1].integerValue else { return nil }
            return (Int(id), Int(user))
        }
    }

    /// Keeps a message preview unless a newer one is already there; returns whether it was kept.
    func setPreview(chatID: Int, text: String, timestamp: Double) throws -> Bool {
        try database.run(
            "UPDATE chats SET preview_text = ?, preview_at = ? WHERE id = ? AND (preview_at IS NULL OR preview_at < ?)",
            [.text(text), .real(timestamp), .integer(Int64(chatID)), .real(timestamp)]) == 1
    }

    /// The latest preview of a chat (as stored: already redacted when the queue redacts).
    func preview(chatID: Int) throws -> (text: String, timestamp: Double)? {
        guard let row = try database.query("SELECT preview_text, preview_at FROM chats WHERE id = ?", [.integer(Int64(chatID))]).first,
            let text = row[0].textValue, case .real(let at) = row[1]
        else { return nil }
        return (text, at)
    }

    /// Records an interaction the end user reported in a chat (`ChatEvent`).
    func addChatEvent(chatID: Int, name: String, payload: [String: JSONValue], now: Date) throws -> StoredChatEvent {
        try database.run("INSERT INTO chat_events (chat_id, name, payload, created_at) VALUES (?, ?, ?, ?)",
                         [.integer(Int64(chatID)), .text(name), .text(try JSONValue.object(payload).jsonText()),
                          .real(now.timeIntervalSince1970)])
        return StoredChatEvent(id: Int(database.lastInsertRowID), chatId: chatID, name: name, payload: payload,
                               createdAt: now.timeIntervalSince1970)
    }

    func setTyping(chatID: Int, _ typing: Bool) throws {
        try database.run("UPDATE chats SET typing = ? WHERE id = ?", [.integer(typing ? 1 : 0), .integer(Int64(chatID))])
    }

    func isTyping(chatID: Int) throws -> Bool {
        (try database.query("SELECT typing FROM chats WHERE id = ?", [.integer(Int64(chatID))]).first?.first?.integerValue) == 1
    }

    /// The end user a chat belongs to.
    func chatOwner(id: Int) throws -> Int? {
        (try database.query("SELECT end_user_id FROM chats WHERE id = ?", [.integer(Int64(id))]).first?.first?.integerValue)
            .map(Int.init)
    }
}
