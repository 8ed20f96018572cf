/// Who took part in a chat event: an agent or a virtual agent, by name.
public struct ChatMember: Codable, Equatable, Sendable {
    /// `agent` or `virtual_agent`.
    public var type: String
    public var name: String?

    public init(type: String, name: String?) {
        self.type = type
        self.name = name
    }
}

/// The data of a `typing_event`: an agent started (`typing` true) or stopped typing.
///
/// ```swift
/// ChatTypingPayload(chatId: 7, typing: true, member: ChatMember(type: "agent", name: "Ben"))
/// ```
public struct ChatTypingPayload: Codable, Equatable, Sendable {
    public var chatId: Int
    public var typing: Bool
    public var member: ChatMember

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case typing, member
    }

    public init(chatId: Int, typing: Bool, member: ChatMember) {
        self.chatId = chatId
        self.typing = typing
        self.member = member
    }
}

/// The data of a `member_event`: a member `joined` or `left` the chat.
public struct ChatMemberPayload: Codable, Equatable, Sendable {
    public enum Change: String, Codable, Sendable, CaseIterable {
        case joined, left
    }

    public var chatId: Int
    public var type: Change
    public var member: ChatMember

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case type, member
    }

    public init(chatId: Int, type: Change, member: ChatMember) {
        self.chatId = chatId
        self.type = type
        self.member = member
    }
}

/// The data of a `cold_transfer`: the chat's agent moved it to another queue.
public struct ColdTransfer: Codable, Equatable, Sendable {
    public var chatId: Int
    public var fromMenuId: Int
    public var toMenuId: Int
    /// The agent who transferred the chat.
    public var agent: ChatMember

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case fromMenuId = "from_menu_id"
        case toMenuId = "to_menu_id"
        case agent
    }

    public init(chatId: Int, fromMenuId: Int, toMenuId: Int, agent: ChatMember) {
        self.chatId = chatId
        self.fromMenuId = fromMenuId
        self.toMenuId = toMenuId
        self.agent = agent
    }
}
