/// What a smart action asks the end user for (seed 003's `SmartActionType`). A type this
/// SDK does not know reads as `unknown`.
public enum SmartActionType: String, Codable, Hashable, Sendable, CaseIterable {
    case photo
    case video
    case screenshot
    case text
    case verification
    case screenShare = "screen_share"
    case unknown

    public init(from decoder: Decoder) throws {
        self = SmartActionType(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
    }

    /// The types an agent can request (all but `unknown`).
    public static let requestable: [SmartActionType] = allCases.filter { $0 != .unknown }
}

/// Where a smart action is: asked for (`requested`), seen by the app (`received`), then
/// `finished` or `failed` (seed 003's `updateSmartActionStatus`).
public enum SmartActionStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case requested
    case received
    case finished
    case failed

    /// `finished` and `failed` are final.
    public var isFinal: Bool { self == .finished || self == .failed }
}

/// Which session a smart action (or a screen share) belongs to (seed 003's
/// `CommunicationRouter(id: chatId, type: .chat)`).
public struct CommunicationRouter: Codable, Hashable, Sendable {
    public enum CommunicationType: String, Codable, Hashable, Sendable, CaseIterable {
        case chat
        case call
    }

    public var id: Int
    public var type: CommunicationType

    public init(id: Int, type: CommunicationType) {
        self.id = id
        self.type = type
    }
}

/// What the end user gave for a smart action: text, a verification outcome, the media
/// sent for it, the start of a screen share, or the reason they declined.
public struct SmartActionResult: Codable, Equatable, Sendable {
    public var text: String?
    public var verified: Bool?
    /// The media (`ChatMedia.id`) sent for the action, in order.
    public var mediaIds: [Int]?
    public var screenShare: Bool?
    public var declineReason: String?

    enum CodingKeys: String, CodingKey {
        case text, verified
        case mediaIds = "media_ids"
        case screenShare = "screen_share"
        case declineReason = "decline_reason"
    }

    public init(text: String? = nil, verified: Bool? = nil, mediaIds: [Int]? = nil, screenShare: Bool? = nil,
                declineReason: String? = nil) {
        self.text = text
        self.verified = verified
        self.mediaIds = mediaIds
        self.screenShare = screenShare
        self.declineReason = declineReason
    }
}

/// A smart action: an agent's request for a photo, a video, a screenshot, text, a
/// verification or a screen share during a session, or one a queue requires before the
/// session (`preSession`). The `smart_action_requested` event carries it (seed 003's
/// `SmartActionRequest`); answering it fills `result` and moves `status`.
///
/// ```swift
/// for await action in ccai.smartActionService!.requests() where action.type == .text {
///     let router = CommunicationRouter(id: action.chatId, type: .chat)
///     try await ccai.smartActionService!.notifySmartActionReceived(router: router, smartActionId: action.id)
/// }
/// ```
public struct SmartAction: Codable, Equatable, Sendable {
    public var id: Int
    public var chatId: Int
    public var type: SmartActionType
    public var status: SmartActionStatus
    public var preSession: Bool
    /// The agent who asked; nil for pre-session actions.
    public var requestedBy: String?
    public var result: SmartActionResult?
    /// Unix seconds.
    public var createdAt: Double
    public var updatedAt: Double

    enum CodingKeys: String, CodingKey {
        case id, type, status, result
        case chatId = "chat_id"
        case preSession = "pre_session"
        case requestedBy = "requested_by"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(id: Int, chatId: Int, type: SmartActionType, status: SmartActionStatus = .requested,
                preSession: Bool = false, requestedBy: String? = nil, result: SmartActionResult? = nil,
                createdAt: Double, updatedAt: Double) {
        self.id = id
        self.chatId = chatId
        self.type = type
        self.status = status
        self.preSession = preSession
        self.requestedBy = requestedBy
        self.result = result
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The router of the action's chat.
    public var router: CommunicationRouter { CommunicationRouter(id: chatId, type: .chat) }
}

/// `PUT .../smart_actions/{id}/status`.
public struct SmartActionStatusUpdate: Codable, Equatable, Sendable {
    public var status: SmartActionStatus

    public init(status: SmartActionStatus) { self.status = status }
}
