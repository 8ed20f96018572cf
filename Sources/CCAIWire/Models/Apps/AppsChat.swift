/// A chat as the Apps API publishes it (`GET /apps/api/v1/chats/{id}`, the public "chat
/// platform API endpoints" page's chat object). Times are ISO 8601 with a zone; `status`
/// and `status_text` come from the one mapping of ``AppsChatStatus``.
public struct AppsChat: Codable, Equatable, Sendable {
    /// An agent or a virtual agent of a chat.
    public struct Participant: Codable, Equatable, Sendable {
        public var id: Int?
        public var name: String
        /// An agent's first name (nil for a virtual agent).
        public var firstName: String?
        /// The sandbox has no avatars: always nil.
        public var avatarUrl: String?
        /// `connected` while in the chat, `disconnected` once gone (our choice of words:
        /// the public pages do not list them).
        public var status: String

        enum CodingKeys: String, CodingKey {
            case id, name, status
            case firstName = "first_name"
            case avatarUrl = "avatar_url"
        }

        public init(id: Int?, name: String, firstName: String? = nil, avatarUrl: String? = nil, status: String) {
            self.id = id
            self.name = name
            self.firstName = firstName
            self.avatarUrl = avatarUrl
            self.status = status
        }
    }

    /// A menu on the chat's path.
    public struct Menu: Codable, Equatable, Sendable {
        public var id: Int
        public var name: String

        public init(id: Int, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var id: Int
    public var status: String
    public var statusText: String
    /// What the chat can do: `screen_share` when the app started it able to share its screen.
    public var features: [String]
    public var createdAt: String
    /// When it ended; nil while in progress.
    public var endsAt: String?
    /// When an idle chat will end (the configuration's `chat_timeout_seconds` after the
    /// end user's last message); nil without a timeout or once ended.
    public var timeoutAt: String?
    public var agent: Participant?
    public var virtualAgent: Participant?
    public var allAgents: [Participant]
    public var allVirtualAgents: [Participant]
    public var lang: String
    /// The chat's menu path from the root.
    public var menus: [Menu]
    public var endUser: AppsEndUser

    enum CodingKeys: String, CodingKey {
        case id, status, features, agent, lang, menus
        case statusText = "status_text"
        case createdAt = "created_at"
        case endsAt = "ends_at"
        case timeoutAt = "timeout_at"
        case virtualAgent = "virtual_agent"
        case allAgents = "all_agents"
        case allVirtualAgents = "all_virtual_agents"
        case endUser = "end_user"
    }

    public init(id: Int, status: String, statusText: String, features: [String], createdAt: String, endsAt: String?,
                timeoutAt: String?, agent: Participant?, virtualAgent: Participant?, allAgents: [Participant],
                allVirtualAgents: [Participant], lang: String, menus: [Menu], endUser: AppsEndUser) {
        self.id = id
        self.status = status
        self.statusText = statusText
        self.features = features
        self.createdAt = createdAt
        self.endsAt = endsAt
        self.timeoutAt = timeoutAt
        self.agent = agent
        self.virtualAgent = virtualAgent
        self.allAgents = allAgents
        self.allVirtualAgents = allVirtualAgents
        self.lang = lang
        self.menus = menus
        self.endUser = endUser
    }

    /// Encodes every key, `null` for what is absent, as the published object lists them all.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(features, forKey: .features)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(endsAt, forKey: .endsAt)
        try container.encode(timeoutAt, forKey: .timeoutAt)
        try container.encode(agent, forKey: .agent)
        try container.encode(virtualAgent, forKey: .virtualAgent)
        try container.encode(allAgents, forKey: .allAgents)
        try container.encode(allVirtualAgents, forKey: .allVirtualAgents)
        try container.encode(lang, forKey: .lang)
        try container.encode(menus, forKey: .menus)
        try container.encode(endUser, forKey: .endUser)
    }
}

/// The body of `POST /apps/api/v1/chats`: a chat for an end user on a menu. The fields
/// may come wrapped in `chat` (as the published update wraps its own) or at the top.
public struct AppsChatRequest: Codable, Equatable, Sendable {
    public var endUserId: Int
    public var menuId: Int
    public var lang: String?
    /// What the company's server knows of the conversation, an object: agents, virtual
    /// agents and plugins see it as the session's signed custom data (the server holds the
    /// company's credentials, as a JWT holds its secret).
    public var context: JSONValue?

    enum CodingKeys: String, CodingKey {
        case lang, context
        case endUserId = "end_user_id"
        case menuId = "menu_id"
    }

    public init(endUserId: Int, menuId: Int, lang: String? = nil, context: JSONValue? = nil) {
        self.endUserId = endUserId
        self.menuId = menuId
        self.lang = lang
        self.context = context
    }
}

/// The body of `PATCH /apps/api/v1/chats/{id}`, as published: `{ "finished_by_user_id":
/// N, "chat": { "status": "finished", "deflection_channel": "...", "escalation_id": N } }`.
public struct AppsChatUpdate: Codable, Equatable, Sendable {
    public struct Fields: Codable, Equatable, Sendable {
        /// `finished` ends the chat; no other value may be set.
        public var status: String?
        /// Deflects an escalation under way to this channel (with `escalation_id`).
        public var deflectionChannel: String?
        public var escalationId: Int?

        enum CodingKeys: String, CodingKey {
            case status
            case deflectionChannel = "deflection_channel"
            case escalationId = "escalation_id"
        }

        public init(status: String? = nil, deflectionChannel: String? = nil, escalationId: Int? = nil) {
            self.status = status
            self.deflectionChannel = deflectionChannel
            self.escalationId = escalationId
        }
    }

    public var finishedByUserId: Int?
    public var chat: Fields

    enum CodingKeys: String, CodingKey {
        case chat
        case finishedByUserId = "finished_by_user_id"
    }

    public init(finishedByUserId: Int? = nil, chat: Fields) {
        self.finishedByUserId = finishedByUserId
        self.chat = chat
    }
}

/// A message as `POST /apps/api/v1/chats/{id}/message` answers it (our choice: the public
/// pages do not show the answer).
public struct AppsMessage: Codable, Equatable, Sendable {
    /// Who wrote a message: `end_user`, `agent`, `virtual_agent` or `system`, and their name.
    public struct Sender: Codable, Equatable, Sendable {
        public var type: String
        public var name: String?

        public init(type: String, name: String? = nil) {
            self.type = type
            self.name = name
        }
    }

    public var id: Int
    public var chatId: Int
    /// `text`, or the kind of what an agent sent (`media`, `form`, `notification`...).
    public var type: String
    /// The text; empty for what has none.
    public var content: String
    public var createdAt: String
    public var sender: Sender?

    enum CodingKeys: String, CodingKey {
        case id, type, content, sender
        case chatId = "chat_id"
        case createdAt = "created_at"
    }

    public init(id: Int, chatId: Int, type: String, content: String, createdAt: String, sender: Sender? = nil) {
        self.id = id
        self.chatId = chatId
        self.type = type
        self.content = content
        self.createdAt = createdAt
        self.sender = sender
    }
}

/// The body of `POST /apps/api/v1/chats/{id}/message`: the end user's text, wrapped in
/// `message` or at the top (our choice: the public pages do not show the body).
public struct AppsMessageRequest: Codable, Equatable, Sendable {
    /// `text` (the only type sent this way; photos and videos have their own routes).
    public var type: String?
    public var content: String

    public init(type: String? = "text", content: String) {
        self.type = type
        self.content = content
    }
}

/// The body of `POST /apps/api/v1/chats/{id}/escalations` and `PATCH
/// .../escalations/{escalation_id}`: the option the end user picked, wrapped in
/// `escalation` or at the top (our choice: the public pages do not show the body).
public struct AppsEscalationRequest: Codable, Equatable, Sendable {
    /// The virtual agent's escalation option; nil escalates to a human in chat.
    public var escalationId: Int?
    /// Where to deflect instead of a human in chat (the option's channels).
    public var deflectionChannel: String?

    enum CodingKeys: String, CodingKey {
        case escalationId = "escalation_id"
        case deflectionChannel = "deflection_channel"
    }

    public init(escalationId: Int? = nil, deflectionChannel: String? = nil) {
        self.escalationId = escalationId
        self.deflectionChannel = deflectionChannel
    }
}
