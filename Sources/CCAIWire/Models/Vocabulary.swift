/// A word of the wire's vocabulary that a newer platform may extend (a message type, a
/// sender type...): the words this SDK knows are constants with their meaning, and a word
/// it does not know is kept as it came rather than failing the whole answer. Written as a
/// string literal where a constant is not needed: `message.type == "noti"`.
///
/// ```swift
/// for type in ChatMessageType.allCases { print(type.rawValue, type.meaning ?? "") }
/// ```
public protocol Vocabulary: RawRepresentable, Codable, Hashable, Sendable, CaseIterable, ExpressibleByStringLiteral,
    CustomStringConvertible where RawValue == String, AllCases == [Self]
{
    init(rawValue: String)
    /// What the word means, for the known ones; nil for one this SDK does not know.
    var meaning: String? { get }
}

extension Vocabulary {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }
}

/// The `type` of a ``ChatMessage``: what it carries.
public struct ChatMessageType: Vocabulary {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Words written by a sender (`text`).
    public static let text: Self = "text"
    /// A file (`media`; its bytes come from `downloadMedia`).
    public static let media: Self = "media"
    /// A custom form an agent sent (`form`).
    public static let form: Self = "form"
    /// A web form an agent sent (`web_form`).
    public static let webForm: Self = "web_form"
    /// The end user's outcome of a web form (`text` says it).
    public static let formComplete: Self = "form_complete"
    /// A screen share event (`event` is a ``ChatMessageEvent``, `screen_share` the session).
    public static let screenShare: Self = "screen_share"
    /// A notification of the platform (`event` names it: `memberJoined`, `chatEnded`...).
    public static let notification: Self = "noti"

    public static let allCases: [Self] = [.text, .media, .form, .webForm, .formComplete, .screenShare, .notification]

    public var meaning: String? {
        switch self {
        case .text: "words written by the sender, in `text`"
        case .media: "a file, in `media` (its bytes from `download_media`); `text` may caption it"
        case .form: "a custom form an agent sent, in `form` (answer it with `submit_custom_form`)"
        case .webForm: "a web form an agent sent, in `web_form` (open its URL; the outcome comes back as form_complete)"
        case .formComplete: "the end user's outcome of a web form, in `text`"
        case .screenShare: "a screen share event, in `event` (requested, started, ended...) and `screen_share`"
        case .notification: "a notification of the platform, named by `event` (memberJoined, chatEnded...), with `text`"
        default: nil
        }
    }
}

/// Who wrote a ``ChatMessage`` (`sender.type`).
public struct ChatSenderType: Vocabulary {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let endUser: Self = "end_user"
    public static let agent: Self = "agent"
    public static let virtualAgent: Self = "virtual_agent"
    public static let system: Self = "system"

    public static let allCases: [Self] = [.endUser, .agent, .virtualAgent, .system]

    public var meaning: String? {
        switch self {
        case .endUser: "the end user (the app)"
        case .agent: "a human agent"
        case .virtualAgent: "a virtual agent (a bot of the platform)"
        case .system: "the platform itself (notifications)"
        default: nil
        }
    }
}

/// Who or what ended a chat (`ended_by` of ``ChatResponse``).
public struct ChatEndedBy: Vocabulary {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let endUser: Self = "end_user"
    public static let agent: Self = "agent"
    public static let timeout: Self = "timeout"
    public static let restart: Self = "restart"

    public static let allCases: [Self] = [.endUser, .agent, .timeout, .restart]

    public var meaning: String? {
        switch self {
        case .endUser: "the end user ended it"
        case .agent: "an agent (or a virtual agent) ended it"
        case .timeout: "the end user wrote nothing for the configured idle time"
        case .restart: "an earlier version of the sandbox restarted while it was open (the sandbox now resumes such chats)"
        default: nil
        }
    }
}

/// Which kind of session a post-session flow, a survey or a rating is of
/// (`communication_type`, seed 000's `communicationType: "chats"`).
public struct CommunicationType: Vocabulary {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let chats: Self = "chats"
    public static let calls: Self = "calls"

    public static let allCases: [Self] = [.chats, .calls]

    public var meaning: String? {
        switch self {
        case .chats: "a chat"
        case .calls: "a voice call"
        default: nil
        }
    }
}
