import Foundation

/// The events of an Apps API chat that the platform POSTs to the company's webhook URL,
/// named once (docs/webhooks.md shows each with an example). The public pages say which
/// happenings are sent (a chat created, a message received, a chat transferred or
/// escalated) but not the names on the wire ("defined in the API spec", which is not
/// public): every name here is our choice, `chat_created` the one the issue names.
///
/// ```swift
/// WebhookEventName.chatCreated.rawValue   // "chat_created"
/// ```
public enum WebhookEventName: String, CaseIterable, Codable, Sendable {
    /// The chat was created (`POST /chats` of the Apps API); `data` is the chat.
    case chatCreated = "chat_created"
    /// A human agent wrote in the chat; `data` is the message.
    case agentMessage = "agent_message"
    /// A virtual agent wrote in the chat; `data` is the message.
    case virtualAgentMessage = "virtual_agent_message"
    /// The platform itself wrote in the chat (a notice: queued, an agent joined...);
    /// `data` is the message.
    case systemMessage = "system_message"
    /// The chat was escalated from a virtual agent to a human; `data` is the escalation.
    case chatEscalated = "chat_escalated"
    /// The chat was deflected to another channel; `data` says which.
    case chatDeflected = "chat_deflected"
    /// The chat moved to another agent or queue; `data` says from where to where.
    case chatTransferred = "chat_transferred"
    /// The chat ended (finished, timed out, canceled...); `data` is the chat.
    case chatEnded = "chat_ended"
}

/// The body of every webhook request: which event, of which chat, when it happened, and
/// what it carries. Our choice of shape (the public pages do not show one); `id` is the
/// delivery's, the same on every attempt, so that a receiver can ignore a delivery it
/// already handled (deliveries are at least once).
///
/// ```json
/// { "id": 17, "event": "agent_message", "chat_id": 42, "timestamp": "2027-01-15T10:30:00Z",
///   "data": { "text": "Hello" } }
/// ```
public struct WebhookEnvelope: Codable, Equatable, Sendable {
    public var id: Int
    /// The event's name: a ``WebhookEventName`` from this sandbox; kept as text so that a
    /// receiver reads events of a newer platform too.
    public var event: String
    public var chatId: Int
    /// When the event happened, ISO 8601 in UTC.
    public var timestamp: String
    public var data: JSONValue

    enum CodingKeys: String, CodingKey {
        case id, event, timestamp, data
        case chatId = "chat_id"
    }

    public init(id: Int, event: String, chatId: Int, timestamp: String, data: JSONValue) {
        self.id = id
        self.event = event
        self.chatId = chatId
        self.timestamp = timestamp
        self.data = data
    }

    /// The event's name, when it is one this sandbox knows.
    public var name: WebhookEventName? { WebhookEventName(rawValue: event) }
}
