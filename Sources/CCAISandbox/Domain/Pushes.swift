import CCAIWire
import Foundation
import Timekeeping

/// Where the sandbox's pushes go: its stand-in for APNs and PushKit. Every push is also
/// recorded (`GET /admin/pushes`); a sink is for an embedding program or a test that wants
/// them as they are sent.
///
/// ```swift
/// struct Collecting: PushSink {
///     let pushes = Mutex<[PushRecord]>([])
///     func deliver(_ push: PushRecord, to token: String) async { pushes.withLock { $0.append(push) } }
/// }
/// let sandbox = try Sandbox(pushSink: Collecting())
/// ```
/// (`LocalPushNetwork`, in CCAIBridge, delivers them to SDK instances in the same process.)
public protocol PushSink: Sendable {
    /// Called once for each push sent, after it was recorded, with the whole device token
    /// it goes to (the record keeps only its end).
    func deliver(_ push: PushRecord, to token: String) async
}

/// Push notifications (seed 004; docs/calls.md): each end user's device tokens, one per
/// type (`apns`, `voip`), and the pushes sent to them, through one outbound channel: each
/// is recorded, then handed to the ``PushSink``. A push to a type the end user has no token
/// for is not sent. What is pushed: a scheduled call coming due (a VoIP push,
/// ``ScheduledCalls``), and an agent's message to an end user with no event stream open
/// (``messageWhileAway(_:in:endUserID:)``).
struct Pushes: Sendable {
    let store: SandboxStore
    let sink: (any PushSink)?
    /// Whether an end user is listening: an agent's message is pushed only when not.
    let streams: EventStreams
    let clock: any TimeSource
    /// Where a push that could not be sent is reported (the message it announced stays posted).
    let log: @Sendable (String) -> Void

    /// Registers the end user's token of `request.type`, or clears it (a nil token).
    func updateToken(_ request: PushTokenRequest, endUserID: Int) async throws {
        if let token = request.token, !PushTokenRequest.isValid(token) {
            throw HTTPError.badRequest("token: hexadecimal digits expected, 8 to \(PushTokenRequest.maximumLength) of them "
                                       + "(a device token as the OS gives it), got \(token.utf8.count) character(s)")
        }
        try await store.setPushToken(request.token?.lowercased(), type: request.type, endUserID: endUserID, now: clock.now())
    }

    /// Sends `payload` to the end user's token of `type`; nil when they have none.
    @discardableResult
    func send(_ payload: PushPayload, type: PushTokenType, endUserID: Int) async throws -> PushRecord? {
        guard let token = try await store.pushToken(type: type, endUserID: endUserID) else { return nil }
        let push = try await store.recordPush(payload, type: type, token: token, endUserID: endUserID, now: clock.now())
        await sink?.deliver(push, to: token)
        return push
    }

    /// Notifies the end user of an agent's or virtual agent's message by an APNs push when
    /// they have no event stream open (the app is in the background or closed), its alert
    /// the sender's name and the text (or what was sent), cut to ``alertLength``
    /// Unicode scalars. Nothing is sent for the end user's own messages, the platform's
    /// notices, or an end user who is listening. Best effort: the message is posted
    /// already, so a push that cannot be recorded is reported, not thrown.
    func messageWhileAway(_ message: ChatMessage, in chatID: Int, endUserID: Int) async {
        guard [.agent, .virtualAgent].contains(message.sender.type), !streams.hasOpen(endUserID: endUserID) else { return }
        do {
            try await send(PushPayload(kind: .chatMessage, chatId: chatID, alert: Self.alert(for: message)), type: .apns,
                           endUserID: endUserID)
        } catch {
            log("sandbox: the push of message \(message.id) in chat \(chatID) could not be sent: \(error)")
        }
    }

    /// The longest alert pushed, in Unicode scalars (a lock screen shows about that much;
    /// counted in scalars, so that combining marks cannot make one "character" kilobytes).
    static let alertLength = 178

    static func alert(for message: ChatMessage) -> String {
        let what = message.text ?? (message.media != nil ? "sent a file" : message.form != nil || message.webForm != nil
                                    ? "sent a form" : "sent a message")
        let text = message.sender.name.map { "\($0): \(what)" } ?? what
        guard text.unicodeScalars.count > alertLength else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(alertLength - 1))) + "…"
    }

    /// A page of the pushes sent (the operator's view).
    func records(after: Int, limit: Int) async throws -> PushRecords {
        PushRecords(pushes: try await store.pushes(after: after, limit: limit))
    }
}
