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
/// verification or a screen share during a session (a chat, or a call: then text, a
/// verification or a screen share), or one a queue requires before a chat
/// (`preSession`). The `smart_action_requested` event carries it (seed 003's
/// `SmartActionRequest`); answering it fills `result` and moves `status`. On the wire a
/// chat's action carries `chat_id`, a call's `call_id`.
///
/// ```swift
/// for await action in ccai.smartActionService!.requests() where action.type == .text {
///     try await ccai.smartActionService!.notifySmartActionReceived(router: action.router, smartActionId: action.id)
/// }
/// ```
public struct SmartAction: Codable, Equatable, Sendable {
    public var id: Int
    /// The session the action belongs to (seed 003's `CommunicationRouter`).
    public var router: CommunicationRouter
    public var type: SmartActionType
    public var status: SmartActionStatus
    public var preSession: Bool
    /// The agent who asked; nil for pre-session actions.
    public var requestedBy: String?
    public var result: SmartActionResult?
    /// Unix seconds.
    public var createdAt: Double
    public var updatedAt: Double

    /// The chat's id, for a chat's action.
    public var chatId: Int? { router.type == .chat ? router.id : nil }
    /// The call's id, for a call's action.
    public var callId: Int? { router.type == .call ? router.id : nil }

    enum CodingKeys: String, CodingKey {
        case id, type, status, result
        case chatId = "chat_id"
        case callId = "call_id"
        case preSession = "pre_session"
        case requestedBy = "requested_by"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(id: Int, router: CommunicationRouter, type: SmartActionType, status: SmartActionStatus = .requested,
                preSession: Bool = false, requestedBy: String? = nil, result: SmartActionResult? = nil,
                createdAt: Double, updatedAt: Double) {
        self.id = id
        self.router = router
        self.type = type
        self.status = status
        self.preSession = preSession
        self.requestedBy = requestedBy
        self.result = result
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        if let callID = try container.decodeIfPresent(Int.self, forKey: .callId) {
            router = CommunicationRouter(id: callID, type: .call)
        } else if let chatID = try container.decodeIfPresent(Int.self, forKey: .chatId) {
            router = CommunicationRouter(id: chatID, type: .chat)
        } else {
            throw DecodingError.keyNotFound(CodingKeys.chatId, .init(codingPath: container.codingPath,
                                                                     debugDescription: "a smart action names its chat_id or its call_id"))
        }
        type = try container.decode(SmartActionType.self, forKey: .type)
        status = try container.decode(SmartActionStatus.self, forKey: .status)
        preSession = try container.decode(Bool.self, forKey: .preSession)
        requestedBy = try container.decodeIfPresent(String.self, forKey: .requestedBy)
        result = try container.decodeIfPresent(SmartActionResult.self, forKey: .result)
        createdAt = try container.decode(Double.self, forKey: .createdAt)
        updatedAt = try container.decode(Double.self, forKey: .updatedAt)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(chatId, forKey: .chatId)
        try container.encodeIfPresent(callId, forKey: .callId)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encode(preSession, forKey: .preSession)
        try container.encodeIfPresent(requestedBy, forKey: .requestedBy)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// `PUT .../smart_actions/{id}/status`.
public struct SmartActionStatusUpdate: Codable, Equatable, Sendable {
    public var status: SmartActionStatus

    public init(status: SmartActionStatus) { self.status = status }
}
