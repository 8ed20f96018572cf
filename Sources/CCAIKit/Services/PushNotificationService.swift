import CCAIWire
import Foundation

/// Push notifications (seed 004): the device's tokens, and the pushes the app hands over.
/// There is no APNs or PushKit on this host: the sandbox records what it would send (`GET
/// /admin/pushes`), and a script or embedding program plays the OS that delivers it.
///
/// ```swift
/// try await ccai.pushNotificationService!.updatePushToken(data: voipToken, type: .voip)
/// let handled = await ccai.pushNotificationService!.handlePushNotification(userInfo)
/// ```
public final class PushNotificationService: Sendable {
    private let api: APIClient
    private let calls: @Sendable () -> CallService?

    init(api: APIClient, calls: @escaping @Sendable () -> CallService?) {
        self.api = api
        self.calls = calls
    }

    /// Asks for permission to notify: there is no OS prompt here, so it is granted.
    public func registerForPushNotifications() async -> Bool { true }

    /// Registers the device's token of `type` with the platform (its bytes, sent in
    /// hexadecimal), or clears it (nil), as the app does when the OS gives or revokes one.
    public func updatePushToken(data: Data?, type: PushTokenType) async throws {
        let token = data.map { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
        if let token, !PushTokenRequest.isValid(token) {
            throw CCAIError.invalidArgument("data: a push token of 4 to \(PushTokenRequest.maximumLength / 2) bytes expected, got \(data?.count ?? 0)")
        }
        _ = try await api.sendRaw(Endpoints.updatePushToken, body: PushTokenRequest(type: type, token: token))
    }

    /// A notification the app received: true when it is the platform's (its `ccai` part
    /// names a kind the SDK knows), handled as that kind: an incoming call is told as the
    /// call service's `incomingCallEvent`; an agent's message is the alert of a chat whose
    /// messages arrive on the event stream once the app has one. False for the app's own
    /// pushes and payloads the SDK cannot read.
    public func handlePushNotification(_ payload: [String: JSONValue]) async -> Bool {
        guard let push = Self.platformPart(of: payload) else { return false }
        switch push.kind {
        case .incomingCall:
            return (try? await calls()?.handleVoIPPush(push)) ?? false
        case .chatMessage:
            return true
        }
    }

    /// The platform's part of a push payload, if it has a readable one.
    static func platformPart(of payload: [String: JSONValue]) -> PushPayload? {
        guard let part = payload[PushPayload.key], let text = try? part.jsonText() else { return nil }
        return try? JSONDecoder().decode(PushPayload.self, from: Data(text.utf8))
    }
}
