import CCAIWire
import Foundation

/// Smart actions (seed 003): the agent's (or the queue's pre-session) requests arrive on
/// ``requests()``, during a chat or a call (its `router` says which); the app acknowledges
/// them, sends what they ask for, and marks them finished or failed. Photos and videos go
/// as chat messages naming the action (`sendMessage(.images(images:smartAction:))`); a
/// call's actions ask for text, a verification or a screen share.
///
/// ```swift
/// let service = ccai.smartActionService!
/// for await action in service.requests() where action.type == .text {
///     try await service.notifySmartActionReceived(router: action.router, smartActionId: action.id)
///     try await service.sendSmartActionResult(router: action.router, smartActionId: action.id,
///                                             result: SmartActionResult(text: "ACME-1234"))
///     try await service.updateSmartActionStatus(router: action.router, smartActionId: action.id, status: .finished)
/// }
/// ```
public final class SmartActionService: Sendable {
    private let api: APIClient
    private let pump: EventPump

    init(api: APIClient, pump: EventPump) {
        self.api = api
        self.pump = pump
    }

    /// The smart actions requested from now on (`smart_action_requested`), as they come.
    public func requests() -> AsyncStream<SmartAction> {
        pump.subscribe(Self.request)
    }

    /// The requests as ``requests()`` has them, each made into what `transform` makes of
    /// it (nil skips it), for a subscriber with no task of its own (``EventInbox``).
    public func requests<Value: Sendable>(wake: @escaping @Sendable (EventInbox<Value>) -> Void,
                                          _ transform: @escaping @Sendable (SmartAction) -> Value?) -> EventInbox<Value> {
        pump.inbox(wake: wake) { Self.request($0).flatMap(transform) }
    }

    @Sendable private static func request(_ event: PlatformEvent) -> SmartAction? {
        event.name == PlatformEventName.smartActionRequested.rawValue ? try? event.decoded(as: SmartAction.self) : nil
    }

    /// Tells the platform the app has the request (status `received`).
    public func notifySmartActionReceived(router: CommunicationRouter, smartActionId: Int) async throws {
        _ = try await api.send(Endpoints.smartActionReceived[router.type],
                               parameters(router, smartActionId), idempotent: true, as: SmartAction.self)
    }

    /// Moves the action to `status`: `finished` once its result is sent, `failed` when the
    /// end user cannot or will not answer. A final action is a `conflict`.
    public func updateSmartActionStatus(router: CommunicationRouter, smartActionId: Int, status: SmartActionStatus) async throws {
        _ = try await api.send(Endpoints.smartActionStatus[router.type],
                               parameters(router, smartActionId), body: SmartActionStatusUpdate(status: status), as: SmartAction.self)
    }

    /// Sends what a text, verification or screen-share action asks for, or the reason the
    /// end user declined.
    public func sendSmartActionResult(router: CommunicationRouter, smartActionId: Int, result: SmartActionResult) async throws {
        _ = try await api.send(Endpoints.smartActionResult[router.type],
                               parameters(router, smartActionId), body: result, idempotent: true, as: SmartAction.self)
    }

    /// The session's smart actions so far, oldest first.
    public func getSmartActions(router: CommunicationRouter) async throws -> [SmartAction] {
        try await api.send(Endpoints.smartActions[router.type], parameters(router, nil),
                           as: [SmartAction].self)
    }

    /// The path parameters of a session's smart action (a chat's or a call's).
    private func parameters(_ router: CommunicationRouter, _ id: Int?) -> [String: CustomStringConvertible] {
        var parameters: [String: CustomStringConvertible] = ["id": router.id]
        if let id { parameters["action"] = id }
        return parameters
    }
}
