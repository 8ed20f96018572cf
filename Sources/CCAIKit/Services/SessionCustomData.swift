import CCAIWire
import Foundation

/// The custom data of the current chat's session as the app sent it (the project's
/// addition: the seeds have the app send custom data, not read it back). `signed` is the
/// `custom_data` claim of the JWT the end user signed in with, with the chat's own signed
/// JWT over it key by key (as the platform merges them); `unsigned` is the chat
/// request's. Read from the app's own JWTs, without checking their signatures: it is what
/// was sent, for the app's routing, not a verified claim.
///
/// ```swift
/// let tier = ccai.chatService?.sessionCustomData?.signed["membership_tier"]?["value"]
/// ```
public struct SessionCustomData: Encodable, Equatable, Sendable {
    /// Items by key: `{ label, value, type, invisible_to_agent }` as signed.
    public var signed: [String: JSONValue]
    /// The chat request's unsigned items, if it had any.
    public var unsigned: CustomDataPayload?

    public init(signed: [String: JSONValue] = [:], unsigned: CustomDataPayload? = nil) {
        self.signed = signed
        self.unsigned = unsigned
    }

    /// The session's data: the sign-in's signed items, then the request's.
    init(signedIn: [String: JSONValue], request: CustomData?) {
        var signed = signedIn
        if let jwt = request?.signed, case .object(let items)? = JWTPayload.claims(of: jwt)?["custom_data"] {
            signed.merge(items) { _, chat in chat }
        }
        self.init(signed: signed, unsigned: request?.unsigned)
    }

    enum CodingKeys: String, CodingKey {
        case signed, unsigned
    }

    /// Encodes both parts; an absent `unsigned` is an empty object, so a Lua reader can
    /// index `custom_data.unsigned.key` without a nil check.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(signed, forKey: .signed)
        try container.encode(unsigned ?? CustomDataPayload(), forKey: .unsigned)
    }
}
