import Foundation

/// Where a screen share session is (seed 002's `ScreenShareServiceState`): `none` (no
/// session), `pending` (created, its code waits for the agent), `authorizing` (the agent
/// joined; the end user is asked to start), `active`, `ended`.
public enum ScreenShareServiceState: String, Codable, Hashable, Sendable, CaseIterable {
    case none
    case pending
    case authorizing
    case active
    case ended
}

/// Who asked for a screen share.
public enum ScreenShareInitiator: String, Codable, Hashable, Sendable, CaseIterable {
    case agent
    case endUser = "end_user"
}

/// What the agent asks the end user to consent to (seed 002's request publisher).
public enum ScreenShareRequestType: String, Codable, Hashable, Sendable, CaseIterable {
    /// Start sharing the screen (asked when the end user initiated the share).
    case session
    /// Let the agent control the app.
    case remoteControl = "remote_control"
}

/// The screen share events of chat messages (seed 001's `ChatMessageEvent`).
public enum ChatMessageEvent: String, Codable, Hashable, Sendable, CaseIterable {
    case screenShareRequestedFromAgent = "screen_share_requested_from_agent"
    case screenShareRequestedFromEndUser = "screen_share_requested_from_end_user"
    case screenShareCodeGenerated = "screen_share_code_generated"
    case screenShareFailed = "screen_share_failed"
    case screenShareStarted = "screen_share_started"
    case screenShareEnded = "screen_share_ended"
}

/// `screenShareService.create(request:)` (seed 002).
///
/// ```swift
/// let session = try await ccai.screenShareService!.create(request: ScreenShareRequest(
///     communicationId: chat.id, communicationType: .chat, initiatedFrom: .agent))
/// ```
public struct ScreenShareRequest: Codable, Equatable, Sendable {
    public var communicationId: Int
    public var communicationType: CommunicationRouter.CommunicationType
    public var initiatedFrom: ScreenShareInitiator

    enum CodingKeys: String, CodingKey {
        case communicationId = "communication_id"
        case communicationType = "communication_type"
        case initiatedFrom = "initiated_from"
    }

    public init(communicationId: Int, communicationType: CommunicationRouter.CommunicationType, initiatedFrom: ScreenShareInitiator) {
        self.communicationId = communicationId
        self.communicationType = communicationType
        self.initiatedFrom = initiatedFrom
    }
}

/// A screen share session: its code (what the agent joins with), who started it, its
/// state, and what the end user allowed.
public struct ScreenShareResponse: Codable, Equatable, Sendable {
    public var id: Int
    public var code: String
    public var communicationId: Int
    public var communicationType: CommunicationRouter.CommunicationType
    public var initiatedFrom: ScreenShareInitiator
    public var state: ScreenShareServiceState
    public var remoteControl: Bool
    public var fullDevice: Bool
    /// The agent who joined, once one has.
    public var agent: String?

    enum CodingKeys: String, CodingKey {
        case id, code, state, agent
        case communicationId = "communication_id"
        case communicationType = "communication_type"
        case initiatedFrom = "initiated_from"
        case remoteControl = "remote_control"
        case fullDevice = "full_device"
    }

    public init(id: Int, code: String, communicationId: Int, communicationType: CommunicationRouter.CommunicationType,
                initiatedFrom: ScreenShareInitiator, state: ScreenShareServiceState, remoteControl: Bool = false,
                fullDevice: Bool = false, agent: String? = nil) {
        self.id = id
        self.code = code
        self.communicationId = communicationId
        self.communicationType = communicationType
        self.initiatedFrom = initiatedFrom
        self.state = state
        self.remoteControl = remoteControl
        self.fullDevice = fullDevice
        self.agent = agent
    }
}

/// `POST /chats/{id}/screen_share_events`: the end user's side of `sendMessage(.screenShare(event:response:))`.
public struct ScreenShareEventMessage: Codable, Equatable, Sendable {
    public var event: ChatMessageEvent
    public var response: ScreenShareResponse?

    public init(event: ChatMessageEvent, response: ScreenShareResponse?) {
        self.event = event
        self.response = response
    }
}

/// The data of a `screen_share_state` event: a session of a chat moved to `state`.
///
/// ```swift
/// ScreenShareStatePayload(sessionId: 3, chatId: 7, state: .authorizing)
/// ```
public struct ScreenShareStatePayload: Codable, Equatable, Sendable {
    public var sessionId: Int
    public var chatId: Int
    public var state: ScreenShareServiceState

    enum CodingKeys: String, CodingKey {
        case sessionId = "session_id"
        case chatId = "chat_id"
        case state
    }

    public init(sessionId: Int, chatId: Int, state: ScreenShareServiceState) {
        self.sessionId = sessionId
        self.chatId = chatId
        self.state = state
    }
}

/// The data of a `screen_share_request` event: the agent asks the end user to consent.
///
/// ```swift
/// ScreenShareRequestPayload(sessionId: 3, type: .remoteControl)
/// ```
public struct ScreenShareRequestPayload: Codable, Equatable, Sendable {
    public var sessionId: Int
    public var type: ScreenShareRequestType

    enum CodingKeys: String, CodingKey {
        case sessionId = "session_id"
        case type
    }

    public init(sessionId: Int, type: ScreenShareRequestType) {
        self.sessionId = sessionId
        self.type = type
    }
}
