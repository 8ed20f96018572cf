import Foundation

/// Where a webhook delivery stands.
public enum WebhookDeliveryState: String, Codable, Sendable {
    /// Waiting for its turn, or its first attempt is under way.
    case pending
    /// An attempt failed; another comes after the backoff.
    case retrying
    /// The receiver answered 2xx.
    case delivered
    /// Given up: out of attempts, an answer that retrying cannot change (a 4xx, a
    /// redirect), or a URL the guard refused.
    case failed
    /// Never attempted: the company's queue was full.
    case dropped
}

/// One delivery as `GET /admin/webhook_deliveries` lists it.
public struct WebhookDeliveryRecord: Codable, Equatable, Sendable {
    public var id: Int
    public var event: String
    public var chatId: Int
    public var url: String
    /// Attempts made so far.
    public var attempts: Int
    /// The HTTP status of the last answer; nil when there was none (a timeout, a refused
    /// connection, not attempted).
    public var lastStatus: Int?
    /// Why the last attempt failed, when it did.
    public var lastError: String?
    public var state: WebhookDeliveryState
    /// When it was queued, and last changed (Unix seconds).
    public var createdAt: Double
    public var updatedAt: Double
    /// When the next attempt is due (`retrying` only).
    public var nextAttemptAt: Double?

    enum CodingKeys: String, CodingKey {
        case id, event, url, attempts, state
        case chatId = "chat_id"
        case lastStatus = "last_status"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case nextAttemptAt = "next_attempt_at"
    }

    public init(id: Int, event: String, chatId: Int, url: String, attempts: Int = 0, lastStatus: Int? = nil,
                lastError: String? = nil, state: WebhookDeliveryState, createdAt: Double, updatedAt: Double,
                nextAttemptAt: Double? = nil) {
        self.id = id
        self.event = event
        self.chatId = chatId
        self.url = url
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A page of deliveries, newest first (getWebhookDeliveries).
public struct WebhookDeliveryRecords: Codable, Equatable, Sendable {
    public var deliveries: [WebhookDeliveryRecord]

    public init(deliveries: [WebhookDeliveryRecord]) { self.deliveries = deliveries }
}
