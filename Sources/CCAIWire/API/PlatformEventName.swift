import Foundation

/// The events of an end user's real-time stream (`GET /events`, docs/openapi.yaml): what
/// the sandbox publishes and the SDK listens for, named once.
///
/// ```swift
/// PlatformEventName.messagesReceived.rawValue   // "messages_received"
/// ```
public enum PlatformEventName: String, CaseIterable, Sendable {
    /// A chat as the platform records it (on creation).
    case chatReceived = "chat_received"
    /// A chat's status changed (`chat_id`, `status`).
    case stateChanged = "state_changed"
    /// Messages written in a chat, by anyone.
    case messagesReceived = "messages_received"
    /// An agent started or stopped typing.
    case typingEvent = "typing_event"
    /// An agent joined or left.
    case memberEvent = "member_event"
    /// The chat moved to another queue.
    case coldTransfer = "cold_transfer"
    /// An agent (or the queue, before the session) asked for a smart action.
    case smartActionRequested = "smart_action_requested"
    /// A screen-share session changed state.
    case screenShareState = "screen_share_state"
    /// The agent asks the end user for a screen share or remote control.
    case screenShareRequest = "screen_share_request"
}
