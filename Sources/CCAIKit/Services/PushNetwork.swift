import CCAIWire
import Foundation

/// The device's side of APNs and PushKit, for a host that plays many devices at once: the
/// SDK tells it each token the app forwards to the platform, so that pushes sent to that
/// token reach this instance's ``PushNotificationService/receive(_:)``, as the OS hands a
/// notification to the app that owns the token. An app on a phone has the OS for this and
/// passes none.
///
/// ```swift
/// let network = LocalPushNetwork()                 // the sandbox's PushSink as well
/// let ccai = CCAI(http: http, pushNetwork: network)
/// ```
public protocol PushNetwork: AnyObject, Sendable {
    /// `device` now holds `token` (hexadecimal, lower case) for pushes of `type`; nil: it
    /// holds none of that type any more.
    func register(_ token: String?, type: PushTokenType, for device: PushNotificationService)
}

/// A push as the device received it: its type and the whole payload (the platform's part
/// under `ccai`, a notification's `aps.alert`), which the app hands to
/// ``PushNotificationService/handlePushNotification(_:)`` or, for a VoIP push,
/// ``CCAI/handleVoIPPush(payload:completion:)``.
public struct ReceivedPush: Sendable, Equatable {
    public var type: PushTokenType
    public var payload: [String: JSONValue]

    public init(type: PushTokenType, payload: [String: JSONValue]) {
        self.type = type
        self.payload = payload
    }

    /// The payload a device receives for `push`: the platform's part under `ccai`, and
    /// for a notification with an alert, `aps = { alert }` as APNs puts it.
    public init(type: PushTokenType, platformPart push: PushPayload) throws {
        var payload: [String: JSONValue] = [PushPayload.key: try JSONValue(encoding: push)]
        if let alert = push.alert { payload["aps"] = .object(["alert": .string(alert)]) }
        self.init(type: type, payload: payload)
    }
}
