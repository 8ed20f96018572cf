import Foundation

/// The kinds of push token a device registers (seed 004): `apns` for notifications, `voip`
/// for PushKit's incoming calls.
public enum PushTokenType: String, Codable, Equatable, Sendable, CaseIterable {
    case apns
    case voip
}

/// What `updatePushToken(data:type:)` sends: the device's token in hexadecimal, or nil to
/// clear the token of that type.
///
/// ```swift
/// PushTokenRequest(type: .voip, token: "9f3c...")
/// ```
public struct PushTokenRequest: Codable, Equatable, Sendable {
    public var type: PushTokenType
    public var token: String?

    public init(type: PushTokenType, token: String?) {
        self.type = type
        self.token = token
    }

    /// The longest token accepted, in hexadecimal digits (APNs tokens are 64 today).
    public static let maximumLength = 200

    /// Whether `token` is hexadecimal digits, 8 to ``maximumLength`` of them.
    public static func isValid(_ token: String) -> Bool {
        (8...maximumLength).contains(token.utf8.count) && token.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}

/// What a push is about: the platform's own payload, under the `ccai` key of what the
/// device receives, so that the SDK can tell its pushes from the app's.
public enum PushKind: String, Codable, Equatable, Sendable, CaseIterable {
    /// A scheduled call came due: the platform calls back (a VoIP push).
    case incomingCall = "incoming_call"
    /// An agent wrote while the end user had no event stream open (an APNs push).
    case chatMessage = "chat_message"
}

/// The platform's part of a push payload (`payload["ccai"]`): what it is about and the
/// call or chat it concerns.
///
/// ```swift
/// PushPayload(kind: .incomingCall, callId: 12)
/// ```
public struct PushPayload: Codable, Equatable, Sendable {
    public var kind: PushKind
    public var callId: Int?
    public var chatId: Int?
    /// What a notification shows (an agent's message), when it shows anything.
    public var alert: String?

    enum CodingKeys: String, CodingKey {
        case kind, alert
        case callId = "call_id"
        case chatId = "chat_id"
    }

    public init(kind: PushKind, callId: Int? = nil, chatId: Int? = nil, alert: String? = nil) {
        self.kind = kind
        self.callId = callId
        self.chatId = chatId
        self.alert = alert
    }

    /// The key of a device's payload that holds the platform's part.
    public static let key = "ccai"
}

/// A push the platform sent to a device (`GET /admin/pushes`, the operator's view).
public struct PushRecord: Codable, Equatable, Sendable {
    public var id: Int
    public var endUserId: Int
    public var type: PushTokenType
    /// The token's last 8 digits: enough to tell devices apart, never the whole token.
    public var tokenSuffix: String
    public var payload: PushPayload
    public var sentAt: Double

    enum CodingKeys: String, CodingKey {
        case id, type, payload
        case endUserId = "end_user_id"
        case tokenSuffix = "token_suffix"
        case sentAt = "sent_at"
    }

    public init(id: Int, endUserId: Int, type: PushTokenType, tokenSuffix: String, payload: PushPayload, sentAt: Double) {
        self.id = id
        self.endUserId = endUserId
        self.type = type
        self.tokenSuffix = tokenSuffix
        self.payload = payload
        self.sentAt = sentAt
    }
}

/// A page of ``PushRecord``s, by id.
public struct PushRecords: Codable, Equatable, Sendable {
    public var pushes: [PushRecord]

    public init(pushes: [PushRecord]) { self.pushes = pushes }
}
