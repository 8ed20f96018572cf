import Foundation

/// The events of an end user's real-time stream (`GET /events`, docs/openapi.yaml): what
/// the sandbox publishes and the SDK listens for, named once.
///
/// ```swift
/// PlatformEventName.messagesReceived.rawValue   // "messages_received"
/// ```
public enum PlatformEventName: String, CaseIterable, Sendable {
    /// The whole chat (`ChatResponse`) each time the platform's record of it changes:
    /// created, status, agent or virtual agent, queue, post-session fields.
    case chatReceived = "chat_received"
    /// Messages written in a chat, by anyone.
    case messagesReceived = "messages_received"
    /// An agent started or stopped typing (``ChatTypingPayload``).
    case typingEvent = "typing_event"
    /// An agent joined or left (``ChatMemberPayload``).
    case memberEvent = "member_event"
    /// The chat moved to another queue (``ColdTransfer``).
    case coldTransfer = "cold_transfer"
    /// An agent (or the queue, before the session) asked for a smart action.
    case smartActionRequested = "smart_action_requested"
    /// A screen-share session changed state (``ScreenShareStatePayload``).
    case screenShareState = "screen_share_state"
    /// The agent asks the end user for a screen share or remote control
    /// (``ScreenShareRequestPayload``).
    case screenShareRequest = "screen_share_request"
    /// The whole call (``CallResponse``) each time the platform's record of it changes.
    case callReceived = "call_received"
    /// A new estimate of a waiting call's wait (``CallWaitTimePayload``).
    case waitTimeUpdated = "wait_time_updated"
    /// An agent joined or left a call (``CallParticipantPayload``).
    case participantUpdated = "participant_updated"
    /// A waiting call's estimate reached its queue's threshold: the platform offers
    /// another way in (``CallDeflection``), once per call.
    case deflectionOffered = "deflection_offered"
    /// A scheduled call came due and the platform calls the end user back (the whole
    /// call, `ringing`): the app accepts or declines it. A VoIP push says the same to a
    /// device with a `voip` token.
    case incomingCall = "incoming_call"

    /// The component of docs/openapi.yaml that describes the event's data: docs/asyncapi.yaml
    /// names it as the message's payload, and a test checks both against the models here.
    ///
    /// ```swift
    /// PlatformEventName.typingEvent.payloadSchema   // "ChatTypingPayload"
    /// ```
    public var payloadSchema: String {
        switch self {
        case .chatReceived: "Chat"
        case .messagesReceived: "ChatMessages"
        case .typingEvent: "ChatTypingPayload"
        case .memberEvent: "ChatMemberPayload"
        case .coldTransfer: "ColdTransfer"
        case .smartActionRequested: "SmartAction"
        case .screenShareState: "ScreenShareStatePayload"
        case .screenShareRequest: "ScreenShareRequestPayload"
        case .callReceived: "Call"
        case .waitTimeUpdated: "CallWaitTimePayload"
        case .participantUpdated: "CallParticipantPayload"
        case .deflectionOffered: "CallDeflection"
        case .incomingCall: "Call"
        }
    }
}
