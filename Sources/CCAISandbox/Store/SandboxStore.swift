import CCAIWire
import Foundation

/// The sandbox's state, written through to SQLite before any change is acknowledged.
/// An actor: one connection, one writer.
actor SandboxStore {
    /// The connection; extensions (smart actions, media, forms) keep their own tables in it.
    let database: SQLiteDatabase
    /// The company whose tokens this store issues and accepts: a token issued for another
    /// company's key (an earlier configuration on the same data) is unknown.
    let companyKey: String
    /// The valid tokens' digests, for checks that cannot wait for the actor.
    nonisolated let tokens = TokenRegistry()

    /// A store in `directory` (created if needed, mode 0700, files 0600), or in memory for nil.
    init(directory: String?, companyKey: String, now: Date = Date()) throws {
        self.companyKey = companyKey
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
            let path = URL(fileURLWithPath: directory).appendingPathComponent("sandbox.sqlite").path
            let mask = umask(0o077)
            defer { umask(mask) }
            database = try SQLiteDatabase(path: path)
            for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            }
        } else {
            database = try SQLiteDatabase(path: nil)
        }
        try database.execute("""
            CREATE TABLE IF NOT EXISTS end_users (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              identifier TEXT NOT NULL UNIQUE,
              name TEXT, email TEXT, phone TEXT,
              created_at REAL NOT NULL
            );
            CREATE TABLE IF NOT EXISTS events (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              name TEXT NOT NULL,
              data TEXT NOT NULL,
              created_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS events_by_user ON events (end_user_id, id);
            CREATE TABLE IF NOT EXISTS chats (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              menu_id INTEGER NOT NULL,
              lang TEXT NOT NULL,
              status TEXT NOT NULL,
              redaction INTEGER NOT NULL,
              custom_data TEXT NOT NULL,
              created_at REAL NOT NULL,
              ended_at REAL,
              ended_by TEXT,
              agent_name TEXT,
              preview_text TEXT,
              preview_at REAL,
              typing INTEGER NOT NULL DEFAULT 0,
              virtual_agent_name TEXT,
              escalated INTEGER NOT NULL DEFAULT 0,
              escalation_id INTEGER,
              escalation_channel TEXT
            );
            CREATE TABLE IF NOT EXISTS messages (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              sequence INTEGER NOT NULL,
              client_message_id TEXT,
              sender_type TEXT NOT NULL,
              sender_name TEXT,
              type TEXT NOT NULL,
              text TEXT,
              event TEXT,
              created_at REAL NOT NULL,
              UNIQUE (chat_id, sequence),
              UNIQUE (chat_id, client_message_id)
            );
            CREATE TABLE IF NOT EXISTS chat_events (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              name TEXT NOT NULL,
              payload TEXT NOT NULL,
              created_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS chat_events_by_time ON chat_events (created_at);
            CREATE INDEX IF NOT EXISTS chats_by_user ON chats (end_user_id, status);
            DROP TABLE IF EXISTS auth_tokens;
            CREATE TABLE IF NOT EXISTS end_user_tokens (
              token_digest TEXT PRIMARY KEY,
              company_key TEXT NOT NULL,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              expires_at REAL NOT NULL,
              custom_data TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS sandbox_settings (
              name TEXT PRIMARY KEY,
              value TEXT NOT NULL
            );
            """)
        try Self.bind(database, toCompany: companyKey, folder: directory)
        try database.run("DELETE FROM end_user_tokens WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
        for row in try database.query("SELECT token_digest, end_user_id, expires_at FROM end_user_tokens WHERE company_key = ?",
                                      [.text(companyKey)]) {
            if let digest = row[0].textValue, let user = row[1].integerValue, case .real(let expiry) = row[2] {
                tokens.insert(digest: digest, endUserID: Int(user), expiresAt: expiry)
            }
        }
        try Self.addMissingColumns(in: database, to: "chats", [
            ("virtual_agent_name", "TEXT"), ("escalated", "INTEGER NOT NULL DEFAULT 0"), ("escalation_id", "INTEGER"),
            ("escalation_channel", "TEXT"), ("screen_shareable", "INTEGER NOT NULL DEFAULT 0"),
            ("post_session", "TEXT"), ("post_session_status", "TEXT"),
            ("post_session_required", "INTEGER NOT NULL DEFAULT 0"), ("post_session_opt_in", "INTEGER NOT NULL DEFAULT 0"),
            ("is_verifiable", "INTEGER NOT NULL DEFAULT 0"), ("display_order", "TEXT"),
        ])
        try Self.addMissingColumns(in: database, to: "messages", [("media_id", "INTEGER"), ("smart_action_id", "INTEGER"),
                                                                 ("form", "TEXT"), ("web_form", "TEXT"), ("screen_share", "TEXT")])
        try Self.addRedactedTexts(in: database)
        try Self.createSmartActionTables(in: database)
        try Self.createMediaTables(in: database)
        try Self.createFormTables(in: database)
        try Self.createScreenShareTables(in: database)
        try Self.createPostSessionTables(in: database)
        try Self.createQuotaTables(in: database)
    }

    /// Records the company a store belongs to the first time it is opened, and refuses it
    /// to any other company key afterwards: its chats and end users are that company's. A
    /// store written before the company was recorded belongs to the key of its tokens.
    private static func bind(_ database: SQLiteDatabase, toCompany companyKey: String, folder: String?) throws {
        let recorded = try database.query("SELECT value FROM sandbox_settings WHERE name = 'company_key'").first?.first?.textValue
            ?? database.query("SELECT company_key FROM end_user_tokens WHERE company_key != ? LIMIT 1", [.text(companyKey)])
            .first?.first?.textValue
        if let recorded, recorded != companyKey {
            throw ConfigurationError(message: "the data in '\(folder ?? "memory")' belongs to the company with key '\(recorded)', "
                                     + "not to '\(companyKey)': use another data folder (--data) for this company")
        }
        try database.run("INSERT OR IGNORE INTO sandbox_settings (name, value) VALUES ('company_key', ?)", [.text(companyKey)])
    }

    /// Brings a table written by an earlier version up to date (`--data` folders outlive
    /// upgrades).
    private static func addMissingColumns(in database: SQLiteDatabase, to table: String, _ columns: [(name: String, type: String)])
        throws
    {
        let existing = Set(try database.query("PRAGMA table_info(\(table))").compactMap { $0[1].textValue })
        for column in columns where !existing.contains(column.name) {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column.name) \(column.type)")
        }
    }

    /// The end user with `identifier`, created if new; the JWT's profile fields update it.
    func endUser(identifier: String, name: String?, email: String?, phone: String?, now: Date) throws -> EndUser {
        try database.transaction {
            try database.run("""
                INSERT INTO end_users (identifier, name, email, phone, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(identifier) DO UPDATE SET
                  name = coalesce(excluded.name, name), email = coalesce(excluded.email, email),
                  phone = coalesce(excluded.phone, phone)
                """, [.text(identifier), text(name), text(email), text(phone), .real(now.timeIntervalSince1970)])
            guard let user = try endUser(where: "identifier = ?", .text(identifier)) else {
                throw SQLiteError(code: 0, message: "the end user vanished")
            }
            return user
        }
    }

    func endUser(id: Int) throws -> EndUser? {
        try endUser(where: "id = ?", .integer(Int64(id)))
    }

    private func endUser(where condition: String, _ value: SQLiteValue) throws -> EndUser? {
        guard let row = try database.query("SELECT id, name, identifier, email, phone FROM end_users WHERE \(condition)",
                                           [value]).first
        else { return nil }
        return EndUser(id: row[0].integerValue.map(Int.init), name: row[1].textValue, identifier: row[2].textValue,
                       email: row[3].textValue, phone: row[4].textValue)
    }

    /// Changes the profile fields that are given (the identifier never changes).
    func updateEndUser(id: Int, name: String?, email: String?, phone: String?) throws -> EndUser? {
        try database.run("UPDATE end_users SET name = coalesce(?, name), email = coalesce(?, email), phone = coalesce(?, phone) WHERE id = ?",
                         [text(name), text(email), text(phone), .integer(Int64(id))])
        return try endUser(id: id)
    }

    /// A new auth token for `endUserID`, carrying the signed custom data of its JWT. Only
    /// its digest is stored.
    func issueToken(endUserID: Int, customData: JSONValue, expiresAt: Date) throws -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = Digest.hex(bytes)
        let digest = Digest.sha256Hex(token)
        try database.run("""
            INSERT INTO end_user_tokens (token_digest, company_key, end_user_id, expires_at, custom_data)
            VALUES (?, ?, ?, ?, ?)
            """, [.text(digest), .text(companyKey), .integer(Int64(endUserID)), .real(expiresAt.timeIntervalSince1970),
                  .text(try customData.jsonText())])
        tokens.insert(digest: digest, endUserID: endUserID, expiresAt: expiresAt.timeIntervalSince1970)
        return token
    }

    /// Revokes a token (signing out); true when it was valid.
    @discardableResult
    func revokeToken(_ token: String) throws -> Bool {
        let digest = Digest.sha256Hex(token)
        tokens.remove(digest: digest)
        return try database.run("DELETE FROM end_user_tokens WHERE token_digest = ? AND company_key = ?",
                                [.text(digest), .text(companyKey)]) > 0
    }

    /// The session of a token of this company that exists and has not expired.
    func session(token: String, now: Date) throws -> Session? {
        guard let row = try database.query("""
            SELECT end_user_id, expires_at, custom_data FROM end_user_tokens WHERE token_digest = ? AND company_key = ?
            """, [.text(Digest.sha256Hex(token)), .text(companyKey)]).first,
            let userID = row[0].integerValue, case .real(let expiresAt) = row[1],
            expiresAt > now.timeIntervalSince1970,
            let user = try endUser(id: Int(userID))
        else { return nil }
        let customData = (try? JSONValue(jsonText: row[2].textValue ?? "{}")) ?? [:]
        return Session(token: token, endUser: user, signedCustomData: customData)
    }

    private func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }

    // MARK: - Chats

    /// Creates a chat (`queued`, or `pending` when pre-session smart actions come first),
    /// unless the end user has one in progress (then that one is returned as `.inProgress`).
    func createChat(endUserID: Int, menuID: Int, lang: String, status: ChatStatus = .queued, redaction: Bool,
                    screenShareable: Bool = false, session: ChatSessionData = ChatSessionData(),
                    postSession: PostSessionSettings = PostSessionSettings(), now: Date) throws -> ChatCreation
    {
        try database.transaction {
            if let existing = try currentChat(endUserID: endUserID) { return .inProgress(existing) }
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
        try chats(where: "end_user_id = ? AND status != 'ended' ORDER BY id DESC LIMIT 1", [.integer(Int64(endUserID))]).first
    }

    /// The end user's own chat with `id` (another user's chat is never found).
    func chat(id: Int, endUserID: Int) throws -> ChatResponse? {
        try chats(where: "id = ? AND end_user_id = ?", [.integer(Int64(id)), .integer(Int64(endUserID))]).first
    }

    /// Ends a chat; nil when it had already ended (or is not the user's).
    func endChat(id: Int, endUserID: Int, by: String, now: Date) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = 'ended', ended_at = ?, ended_by = ? WHERE id = ? AND end_user_id = ? AND status != 'ended'",
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

    /// Queued chats per queue (what capacity and wait estimates count).
    func waitingCounts() throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for row in try database.query("SELECT menu_id, count(*) FROM chats WHERE status = 'queued' GROUP BY menu_id") {
            if let menu = row[0].integerValue, let count = row[1].integerValue { counts[Int(menu)] = Int(count) }
        }
        return counts
    }

    /// The chats queued on `menus` and waiting for a human agent, oldest first, with
    /// their end users.
    func queuedChats(menus: [Int]) throws -> [(chat: ChatResponse, endUserID: Int)] {
        guard !menus.isEmpty else { return [] }
        let list = menus.map(String.init).joined(separator: ", ")
        let chats = try chats(where: "status = 'queued' AND agent_name IS NULL AND menu_id IN (\(list)) ORDER BY id", [])
        return try chats.compactMap { chat in try chatOwner(id: chat.id).map { (chat, $0) } }
    }

    // MARK: - Messages

    /// Stores a message at the end of the chat. A message whose `clientMessageID` the chat
    /// already has is not stored again: the stored one comes back with `isNew` false.
    func addMessage(chatID: Int, sender: ChatMessageSender, type: ChatMessageType, text: String?, event: String?,
                    media: ChatMedia? = nil, smartActionID: Int? = nil, form: CustomForm? = nil, webForm: WebFormRequest? = nil,
                    screenShare: ScreenShareResponse? = nil, clientMessageID: String?, now: Date,
                    redactedText: String? = nil) throws
        -> (message: ChatMessage, isNew: Bool)
    {
        try database.transaction {
            if let clientMessageID, let existing = try message(chatID: chatID, clientMessageID: clientMessageID) {
                return (existing, false)
            }
            let next = (try database.query("SELECT coalesce(max(sequence), 0) + 1 FROM messages WHERE chat_id = ?",
                                           [.integer(Int64(chatID))]).first?.first?.integerValue) ?? 1
            try database.run(
                "INSERT INTO messages (chat_id, sequence, client_message_id, sender_type, sender_name, type, text, event, media_id, smart_action_id, form, web_form, screen_share, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.integer(Int64(chatID)), .integer(next), clientMessageID.map { .text($0) } ?? .null, .text(sender.type.rawValue),
                 sender.name.map { .text($0) } ?? .null, .text(type.rawValue), text.map { .text($0) } ?? .null,
                 event.map { .text($0) } ?? .null, media.map { .integer(Int64($0.id)) } ?? .null,
                 smartActionID.map { .integer(Int64($0)) } ?? .null, try Self.json(form), try Self.json(webForm),
                 try Self.json(screenShare), .real(now.timeIntervalSince1970)])
            if let redactedText { try keepRedactedText(redactedText, ofMessage: database.lastInsertRowID) }
            let message = ChatMessage(id: Int(database.lastInsertRowID), chatId: chatID, sequence: Int(next),
                                      clientMessageId: clientMessageID, sender: sender, type: type, text: text, event: event,
                                      media: media, smartActionId: smartActionID, form: form, webForm: webForm,
                                      screenShare: screenShare, createdAt: now.timeIntervalSince1970)
            return (message, true)
        }
    }

    /// A value stored as JSON text (nil as NULL).
    static func json<Value: Encodable>(_ value: Value?) throws -> SQLiteValue {
        guard let value else { return .null }
        return .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// The message a client sent with `clientMessageID`, if the chat has it.
    func message(chatID: Int, clientMessageID: String) throws -> ChatMessage? {
        try messages(where: "m.chat_id = ? AND m.client_message_id = ?", [.integer(Int64(chatID)), .text(clientMessageID)]).first
    }

    /// A chat's messages in order.
    func messages(chatID: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? ORDER BY m.sequence", [.integer(Int64(chatID))])
    }

    /// A page of a chat's messages in order: at most `limit` after the message `after`.
    func messages(chatID: Int, after: Int, limit: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                     [.integer(Int64(chatID)), .integer(Int64(after)), .integer(Int64(limit))])
    }

    func messages(where condition: String, _ parameters: [SQLiteValue]) throws -> [ChatMessage] {
        try database.query(
            """
            SELECT m.id, m.chat_id, m.sequence, m.client_message_id, m.sender_type, m.sender_name, m.type, m.text, m.event,
                   m.created_at, m.smart_action_id, f.id, f.type, f.name, f.mime_type, f.size, m.form, m.web_form, m.screen_share
            FROM messages m LEFT JOIN media f ON f.id = m.media_id WHERE \(condition)
            """,
            parameters).compactMap { row in
            guard let id = row[0].integerValue, let chat = row[1].integerValue, let sequence = row[2].integerValue,
                let senderType = row[4].textValue, let type = row[6].textValue, case .real(let created) = row[9]
            else { return nil }
            var media: ChatMedia?
            if let mediaID = row[11].integerValue, let kind = row[12].textValue.flatMap(ChatMediaType.init(rawValue:)),
                let mimeType = row[14].textValue, let size = row[15].integerValue
            {
                media = ChatMedia(id: Int(mediaID), type: kind, name: row[13].textValue, mimeType: mimeType, size: Int(size))
            }
            return ChatMessage(id: Int(id), chatId: Int(chat), sequence: Int(sequence), clientMessageId: row[3].textValue,
                               sender: ChatMessageSender(type: ChatSenderType(rawValue: senderType), name: row[5].textValue),
                               type: ChatMessageType(rawValue: type),
                               text: row[7].textValue, event: row[8].textValue, media: media,
                               smartActionId: row[10].integerValue.map { Int($0) },
                               form: row[16].textValue.flatMap { try? JSONDecoder().decode(CustomForm.self, from: Data($0.utf8)) },
                               webForm: row[17].textValue.flatMap { try? JSONDecoder().decode(WebFormRequest.self, from: Data($0.utf8)) },
                               screenShare: row[18].textValue.flatMap { try? JSONDecoder().decode(ScreenShareResponse.self, from: Data($0.utf8)) },
                               createdAt: created)
        }
    }

    /// Moves a chat to `status` (not an ended one), with its agent; nil when it ended.
    func updateChat(id: Int, status: ChatStatus, agent: String?) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = ?, agent_name = coalesce(?, agent_name) WHERE id = ? AND status != 'ended'",
            [.text(status.rawValue), agent.map { .text($0) } ?? .null, .integer(Int64(id))])
        guard changed == 1 else { return nil }
        return try chats(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// A `pending` chat joins its queue; nil when it is not pending.
    func enqueuePendingChat(id: Int) throws -> ChatResponse? {
        let changed = try database.run("UPDATE chats SET status = 'queued' WHERE id = ? AND status = 'pending'",
                                       [.integer(Int64(id))])
        return changed == 0 ? nil : try chats(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// A chat's status, whoever owns it.
    func chatStatus(id: Int) throws -> ChatStatus? {
        try database.query("SELECT status FROM chats WHERE id = ?", [.integer(Int64(id))]).first?.first?.textValue
            .flatMap(ChatStatus.init(rawValue:))
    }

    /// A virtual agent takes a queued chat: active, with its virtual agent.
    func assignVirtualAgent(id: Int, name: String) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET status = 'active', virtual_agent_name = ? WHERE id = ? AND status = 'queued' AND agent_name IS NULL",
            [.text(name), .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Starts an escalation from the chat's virtual agent: the chat is queued again for a
    /// human. Nil unless a virtual agent has the chat and no escalation has started.
    func startEscalation(id: Int, option: (id: Int, channel: String?)?) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET status = 'queued', escalated = 1, escalation_id = ?, escalation_channel = ?
            WHERE id = ? AND status = 'active' AND virtual_agent_name IS NOT NULL AND agent_name IS NULL AND escalated = 0
            """, [option.map { .integer(Int64($0.id)) } ?? .null, option?.channel.map { .text($0) } ?? .null, .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Commits an option to an escalation under way (started, no human yet). Nil otherwise.
    func updateEscalation(id: Int, option: (id: Int, channel: String?)) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET escalation_id = ?, escalation_channel = ?
            WHERE id = ? AND status != 'ended' AND escalated = 1 AND agent_name IS NULL
            """, [.integer(Int64(option.id)), option.channel.map { .text($0) } ?? .null, .integer(Int64(id))])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(id))]).first : nil
    }

    /// Moves a chat in progress to another queue (a cold transfer): queued there, with no
    /// agent, redacted as that queue says, with its post-session settings.
    func transferChat(id: Int, toMenu menuID: Int, redaction: Bool, postSession: PostSessionSettings) throws -> ChatResponse? {
        let changed = try database.run("""
            UPDATE chats SET menu_id = ?, redaction = ?, status = 'queued', agent_name = NULL, virtual_agent_name = NULL,
              escalated = 0, escalation_id = NULL, escalation_channel = NULL, post_session = ?, post_session_required = ?,
              post_session_opt_in = ?
            WHERE id = ? AND status != 'ended'
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
                SELECT agent_name, escalated FROM chats WHERE id = ? AND status IN ('queued', 'assigned', 'active')
                """,
                                               [.integer(Int64(id))]).first
            else { return nil }
            let toHuman = row[0].textValue != nil || row[1].integerValue == 1
            try database.run("UPDATE chats SET status = 'queued', agent_name = NULL, virtual_agent_name = NULL WHERE id = ?",
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
        try database.query("SELECT id, end_user_id FROM chats WHERE status != 'ended' ORDER BY id").compactMap { row in
            guard let id = row[0].integerValue, let user = row[1].integerValue else { return nil }
            return (Int(id), Int(user))
        }
    }

    /// The chats in progress whose end user has written nothing since `moment` (counting
    /// from the chat's start), with their end users.
    func chatsIdle(since moment: Date) throws -> [(id: Int, endUserID: Int)] {
        try database.query("""
            SELECT c.id, c.end_user_id FROM chats c WHERE c.status != 'ended' AND coalesce(
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

    // MARK: - Events

    /// The id of the end user's newest event, if any.
    func latestEventID(endUserID: Int) throws -> Int64? {
        try database.query("SELECT MAX(id) FROM events WHERE end_user_id = ?", [.integer(Int64(endUserID))]).first?.first?.integerValue
    }

    /// Records an event for an end user; returns its id (increasing, never reused).
    func appendEvent(endUserID: Int, name: String, jsonText: String, now: Date) throws -> Int64 {
        try database.run("INSERT INTO events (end_user_id, name, data, created_at) VALUES (?, ?, ?, ?)",
                         [.integer(Int64(endUserID)), .text(name), .text(jsonText), .real(now.timeIntervalSince1970)])
        return database.lastInsertRowID
    }

    /// An end user's events after `id`, oldest first: at most `limit` of them and, past the
    /// first, at most `maximumBytes` of data in all (a replay is paged by bytes, so a
    /// reconnect never loads more than that at once).
    func events(endUserID: Int, after id: Int64, limit: Int = 500, maximumBytes: Int = 256 << 10) throws -> [SandboxEvent] {
        var events: [SandboxEvent] = []
        var total = 0
        try database.query("SELECT id, name, data FROM events WHERE end_user_id = ? AND id > ? ORDER BY id LIMIT ?",
                           [.integer(Int64(endUserID)), .integer(id), .integer(Int64(limit))]) { row in
            guard let id = row[0].integerValue, let name = row[1].textValue, let data = row[2].textValue else { return true }
            total += data.utf8.count
            if !events.isEmpty, total > maximumBytes { return false }
            events.append(SandboxEvent(id: id, name: name, data: data))
            return true
        }
        return events
    }
}

/// One stored event of an end user's real-time stream.
struct SandboxEvent: Sendable, Equatable {
    var id: Int64
    var name: String
    /// JSON text.
    var data: String
}

/// Who is calling: the end user behind a valid auth token.
struct Session: Sendable {
    var token: String
    var endUser: EndUser
    /// The `custom_data` claim of the JWT the token came from (signed, so trusted).
    var signedCustomData: JSONValue
}
