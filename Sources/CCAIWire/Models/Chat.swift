/// `chatService.start(request:)` (seed 001).
public struct ChatRequest: Codable, Equatable, Sendable {
    public var menuId: Int
    public var lang: String?
    public var ticketId: String?
    public var greeting: String?
    public var customData: CustomData?
    public var displayOrderInAdapter: [String]?
    public var isScreenShareable: Bool?
    public var isVerifiable: Bool?

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case lang
        case ticketId = "ticket_id"
        case greeting
        case customData = "custom_data"
        case displayOrderInAdapter = "display_order_in_adapter"
        case isScreenShareable = "is_screen_shareable"
        case isVerifiable = "is_verifiable"
    }

    public init(menuId: Int, lang: String? = nil, ticketId: String? = nil, greeting: String? = nil,
                customData: CustomData? = nil, displayOrderInAdapter: [String]? = nil, isScreenShareable: Bool? = nil,
                isVerifiable: Bool? = nil) {
        self.menuId = menuId
        self.lang = lang
        self.ticketId = ticketId
        self.greeting = greeting
        self.customData = customData
        self.displayOrderInAdapter = displayOrderInAdapter
        self.isScreenShareable = isScreenShareable
        self.isVerifiable = isVerifiable
    }
}

/// Where a chat is in its life (seed 001: "queued, active, ended, etc.").
/// A chat on a queue that requires pre-session smart actions starts `pending`: it reaches
/// the agents once the app has answered them and calls `enqueueCurrentChat`.
public enum ChatStatus: String, Codable, Equatable, Sendable, CaseIterable {
    case pending
    case queued
    case assigned
    case active
    case ended
}

/// Who a chat is with.
public struct ChatAgent: Codable, Equatable, Sendable {
    public var id: Int?
    public var name: String

    public init(id: Int? = nil, name: String) {
        self.id = id
        self.name = name
    }
}

/// A chat session as the platform reports it (`ChatResponse` in the seeds).
public struct ChatResponse: Codable, Equatable, Sendable {
    public var id: Int
    public var status: ChatStatus
    public var menuId: Int
    public var lang: String
    public var agent: ChatAgent?
    public var virtualAgent: ChatAgent?
    /// Whether a post-session flow is configured for the chat (seed 000).
    public var postSessionRequired: Bool
    /// Whether the end user must opt in before the post-session flow runs.
    public var postSessionOptInRequired: Bool?
    /// Where the post-session phase is; nil before `startPostSession()`.
    public var postSessionTransferStatus: PostSessionTransferStatus?
    public var redactionEnabled: Bool
    /// Unix seconds.
    public var createdAt: Double
    public var endedAt: Double?
    /// `end_user`, `agent`, `timeout` or `restart` (the sandbox restarted).
    public var endedBy: ChatEndedBy?
    /// Whether the app started the chat able to share its screen (`isScreenShareable`).
    public var isSupportingScreenShare: Bool

    enum CodingKeys: String, CodingKey {
        case id, status, lang, agent
        case isSupportingScreenShare = "is_supporting_screen_share"
        case menuId = "menu_id"
        case virtualAgent = "virtual_agent"
        case postSessionRequired = "post_session_required"
        case postSessionOptInRequired = "post_session_opt_in_required"
        case postSessionTransferStatus = "post_session_transfer_status"
        case redactionEnabled = "redaction_enabled"
        case createdAt = "created_at"
        case endedAt = "ended_at"
        case endedBy = "ended_by"
    }

    public init(id: Int, status: ChatStatus, menuId: Int, lang: String, agent: ChatAgent? = nil,
                virtualAgent: ChatAgent? = nil, postSessionRequired: Bool = false, postSessionOptInRequired: Bool? = nil,
                postSessionTransferStatus: PostSessionTransferStatus? = nil, redactionEnabled: Bool = false,
                createdAt: Double, endedAt: Double? = nil, endedBy: ChatEndedBy? = nil, isSupportingScreenShare: Bool = false) {
        self.postSessionOptInRequired = postSessionOptInRequired
        self.postSessionTransferStatus = postSessionTransferStatus
        self.id = id
        self.status = status
        self.menuId = menuId
        self.lang = lang
        self.agent = agent
        self.virtualAgent = virtualAgent
        self.postSessionRequired = postSessionRequired
        self.redactionEnabled = redactionEnabled
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.endedBy = endedBy
        self.isSupportingScreenShare = isSupportingScreenShare
    }

    /// Decodes answers without `is_supporting_screen_share` as false.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        status = try container.decode(ChatStatus.self, forKey: .status)
        menuId = try container.decode(Int.self, forKey: .menuId)
        lang = try container.decode(String.self, forKey: .lang)
        agent = try container.decodeIfPresent(ChatAgent.self, forKey: .agent)
        virtualAgent = try container.decodeIfPresent(ChatAgent.self, forKey: .virtualAgent)
        postSessionRequired = try container.decode(Bool.self, forKey: .postSessionRequired)
        postSessionOptInRequired = try container.decodeIfPresent(Bool.self, forKey: .postSessionOptInRequired)
        postSessionTransferStatus = try container.decodeIfPresent(PostSessionTransferStatus.self, forKey: .postSessionTransferStatus)
        redactionEnabled = try container.decode(Bool.self, forKey: .redactionEnabled)
        createdAt = try container.decode(Double.self, forKey: .createdAt)
        endedAt = try container.decodeIfPresent(Double.self, forKey: .endedAt)
        endedBy = try container.decodeIfPresent(ChatEndedBy.self, forKey: .endedBy)
        isSupportingScreenShare = try container.decodeIfPresent(Bool.self, forKey: .isSupportingScreenShare) ?? false
    }

    public var isInProgress: Bool { status != .ended }
}

/// Who wrote a chat message.
public struct ChatMessageSender: Codable, Equatable, Sendable {
    public var type: ChatSenderType
    public var name: String?

    public init(type: ChatSenderType, name: String? = nil) {
        self.type = type
        self.name = name
    }
}

/// A message of a chat, as the platform stores it: a server id, its place in the chat
/// (`sequence`), and the client's id when the end user sent it.
public struct ChatMessage: Codable, Equatable, Sendable {
    public var id: Int
    public var chatId: Int
    public var sequence: Int
    public var clientMessageId: String?
    public var sender: ChatMessageSender
    public var type: ChatMessageType
    public var text: String?
    /// For notifications: the event (`memberJoined`, `chatEnded`, ...).
    public var event: String?
    /// For `media` messages: the file (its bytes come from `downloadMedia`).
    public var media: ChatMedia?
    /// The smart action the message answers, if any.
    public var smartActionId: Int?
    /// For `form` messages: the custom form the agent sent.
    public var form: CustomForm?
    /// For `web_form` messages: the web form the agent sent.
    public var webForm: WebFormRequest?
    /// For `screen_share` messages (`event` is a ``ChatMessageEvent``): the session.
    public var screenShare: ScreenShareResponse?
    public var createdAt: Double

    enum CodingKeys: String, CodingKey {
        case id, sequence, sender, type, text, event, media, form
        case webForm = "web_form"
        case screenShare = "screen_share"
        case chatId = "chat_id"
        case clientMessageId = "client_message_id"
        case smartActionId = "smart_action_id"
        case createdAt = "created_at"
    }

    public init(id: Int, chatId: Int, sequence: Int, clientMessageId: String? = nil, sender: ChatMessageSender,
                type: ChatMessageType = .text, text: String? = nil, event: String? = nil, media: ChatMedia? = nil,
                smartActionId: Int? = nil, form: CustomForm? = nil, webForm: WebFormRequest? = nil,
                screenShare: ScreenShareResponse? = nil, createdAt: Double) {
        self.id = id
        self.chatId = chatId
        self.sequence = sequence
        self.clientMessageId = clientMessageId
        self.sender = sender
        self.type = type
        self.text = text
        self.event = event
        self.media = media
        self.smartActionId = smartActionId
        self.form = form
        self.webForm = webForm
        self.screenShare = screenShare
        self.createdAt = createdAt
    }
}

/// `POST /chats/{id}/messages`.
public struct SendMessageRequest: Codable, Equatable, Sendable {
    public var text: String
    /// Set by the client so that a retried send is stored once.
    public var clientMessageId: String

    enum CodingKeys: String, CodingKey {
        case text
        case clientMessageId = "client_message_id"
    }

    public init(text: String, clientMessageId: String) {
        self.text = text
        self.clientMessageId = clientMessageId
    }
}

/// A page of the end user's ended chats with their messages (`getPreviousChats`).
public struct PreviousChatsResponse: Codable, Equatable, Sendable {
    public var chats: [ChatResponse]
    /// The messages of those chats, chat by chat, in sequence.
    public var messages: [ChatMessage]
    public var currentPage: Int
    public var totalPages: Int

    enum CodingKeys: String, CodingKey {
        case chats, messages
        case currentPage = "current_page"
        case totalPages = "total_pages"
    }

    public init(chats: [ChatResponse], messages: [ChatMessage], currentPage: Int, totalPages: Int) {
        self.chats = chats
        self.messages = messages
        self.currentPage = currentPage
        self.totalPages = totalPages
    }
}

/// `POST /chats/{id}/preview`: what the end user is typing, with the time it was typed.
public struct MessagePreviewRequest: Codable, Equatable, Sendable {
    public var text: String
    /// Unix seconds; a preview older than the last one kept is dropped.
    public var timestamp: Double

    public init(text: String, timestamp: Double) {
        self.text = text
        self.timestamp = timestamp
    }
}

/// The preview as agents see it, and whether the last one sent was kept.
public struct MessagePreview: Codable, Equatable, Sendable {
    public var text: String?
    public var timestamp: Double?
    public var accepted: Bool?
    public var typing: Bool

    public init(text: String?, timestamp: Double?, accepted: Bool?, typing: Bool) {
        self.text = text
        self.timestamp = timestamp
        self.accepted = accepted
        self.typing = typing
    }
}

/// `ChatEvent` (seed 001): an interaction of the end user the platform tracks
/// (`form_received`, `form_clicked`, `smart_action_received`, `smart_action_clicked`, or
/// the app's own), with an optional payload. `POST /chats/{id}/chat_events` sends it.
///
/// ```swift
/// try await ccai.chatService!.sendEvent(ChatEvent(name: "form_received", payload: ["name": "contact_form"]))
/// ```
public struct ChatEvent: Codable, Equatable, Sendable {
    public var name: String
    public var payload: [String: JSONValue]?

    public init(name: String, payload: [String: JSONValue]? = nil) {
        self.name = name
        self.payload = payload
    }
}

/// A chat event as the platform stored it.
public struct StoredChatEvent: Codable, Equatable, Sendable {
    public var id: Int
    public var chatId: Int
    public var name: String
    public var payload: [String: JSONValue]
    public var createdAt: Double

    enum CodingKeys: String, CodingKey {
        case id, name, payload
        case chatId = "chat_id"
        case createdAt = "created_at"
    }

    public init(id: Int, chatId: Int, name: String, payload: [String: JSONValue], createdAt: Double) {
        self.id = id
        self.chatId = chatId
        self.name = name
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// `ChatEscalationOption` (seed 001): what the end user picked when leaving a virtual
/// agent, such as "Email us instead".
///
/// ```swift
/// try await ccai.chatService!.escalate(option: ChatEscalationOption(escalationId: 123, deflectionChannel: "email"))
/// ```
public struct ChatEscalationOption: Codable, Equatable, Sendable {
    public var escalationId: Int
    public var deflectionChannel: String?

    enum CodingKeys: String, CodingKey {
        case escalationId = "escalation_id"
        case deflectionChannel = "deflection_channel"
    }

    public init(escalationId: Int, deflectionChannel: String? = nil) {
        self.escalationId = escalationId
        self.deflectionChannel = deflectionChannel
    }
}
