import CCAIWire
import Foundation

/// Push notifications (seed 004): the device's tokens, and the pushes the app hands over.
/// There is no APNs or PushKit on this host: the sandbox records what it would send (`GET
/// /admin/pushes`), and the program that plays the device delivers it: through a
/// ``PushNetwork`` that routes pushes by token to ``receive(_:)``, whose
/// ``receivedPushes()`` the app reads as it would the OS's callbacks.
///
/// ```swift
/// try await ccai.pushNotificationService!.updatePushToken(data: voipToken, type: .voip)
/// for await push in ccai.pushNotificationService!.receivedPushes() {
///     _ = await ccai.pushNotificationService!.handlePushNotification(push.payload)
/// }
/// ```
public final class PushNotificationService: Sendable {
    private let api: APIClient
    private let calls: @Sendable () -> CallService?
    private let network: (any PushNetwork)?
    private let inbox = LockedInbox()

    init(api: APIClient, network: (any PushNetwork)?, calls: @escaping @Sendable () -> CallService?) {
        self.api = api
        self.network = network
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
        // The device holds the token before the platform hears of it: a push sent the
        // moment the platform has it finds the device.
        network?.register(token, type: type, for: self)
        _ = try await api.sendRaw(Endpoints.updatePushToken, body: PushTokenRequest(type: type, token: token))
    }

    /// The pushes this device receives from now on, each once to every reader, until the
    /// reader stops. Reading them hands nothing to the SDK: the app decides, as with the
    /// OS's callbacks (``handlePushNotification(_:)``, ``CCAI/handleVoIPPush(payload:completion:)``).
    public func receivedPushes() -> AsyncStream<ReceivedPush> {
        inbox.subscribe()
    }

    /// A push the OS delivered to this device (its ``PushNetwork`` calls this): told to
    /// every reader of ``receivedPushes()``.
    public func receive(_ push: ReceivedPush) {
        inbox.deliver(push)
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

/// The readers of a device's pushes.
private final class LockedInbox: @unchecked Sendable {
    private let lock = NSLock()
    /// Readers by the order they subscribed, told in that order.
    private var readers: [Int: AsyncStream<ReceivedPush>.Continuation] = [:]
    private var lastReader = 0

    func subscribe() -> AsyncStream<ReceivedPush> {
        let (stream, continuation) = AsyncStream<ReceivedPush>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferedPushes))
        let id = lock.withLock { () -> Int in
            lastReader += 1
            return lastReader
        }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.readers.removeValue(forKey: id) } }
        lock.withLock { readers[id] = continuation }
        return stream
    }

    func deliver(_ push: ReceivedPush) {
        for (_, reader) in lock.withLock({ readers.sorted { $0.key < $1.key } }) { reader.yield(push) }
    }

    /// Pushes kept for a reader that does not keep up (the oldest go first), as a device
    /// keeps a bounded number of notifications.
    static let bufferedPushes = 100
}
