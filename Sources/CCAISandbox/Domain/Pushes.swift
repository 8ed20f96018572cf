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
///     func deliver(_ push: PushRecord) async { pushes.withLock { $0.append(push) } }
/// }
/// let sandbox = try Sandbox(pushSink: Collecting())
/// ```
public protocol PushSink: Sendable {
    /// Called once for each push sent, after it was recorded.
    func deliver(_ push: PushRecord) async
}

/// Push notifications (seed 004; docs/calls.md): each end user's device tokens, one per
/// type (`apns`, `voip`), and the pushes sent to them, through one outbound channel: each
/// is recorded, then handed to the ``PushSink``. A push to a type the end user has no token
/// for is not sent.
struct Pushes: Sendable {
    let store: SandboxStore
    let sink: (any PushSink)?
    let clock: any Clock

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
        await sink?.deliver(push)
        return push
    }

    /// A page of the pushes sent (the operator's view).
    func records(after: Int, limit: Int) async throws -> PushRecords {
        PushRecords(pushes: try await store.pushes(after: after, limit: limit))
    }
}
