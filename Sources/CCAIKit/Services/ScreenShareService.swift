import CCAIWire
import Foundation

/// Options of `initializeScreenShare` (seed 002): the screen share key and, when the
/// provider needs one, its domain.
public struct ScreenShareOptions: Sendable, Equatable {
    public var key: String
    public var domain: String?

    public init(key: String, domain: String? = nil) {
        self.key = key
        self.domain = domain
    }
}

/// Screen share sessions (seed 002): create one (its code is what the agent joins with),
/// activate it when the agent has joined (`authorizing`), answer remote-control requests,
/// end it, clear it. States and the agent's consent requests arrive on ``states()`` and
/// ``requests()``. Available after `CCAI.initializeScreenShare(options:)`.
///
/// ```swift
/// let service = ccai.screenShareService!
/// let session = try await service.create(request: ScreenShareRequest(communicationId: chat.id,
///                                                                    communicationType: .chat, initiatedFrom: .agent))
/// try await ccai.chatService!.sendMessage(.screenShare(event: .screenShareCodeGenerated, response: session))
/// for await state in service.states() where state == .authorizing { try await service.activate(accepted: true) }
/// ```
public final class ScreenShareService: @unchecked Sendable {
    private let api: APIClient
    private let pump: EventPump
    private let lock = NSLock()
    private var _options: ScreenShareOptions
    private var session: ScreenShareResponse?

    /// The current session's state follows the platform's events (before subscribers see
    /// them, so a `states()` consumer reads the new `state`).
    init(api: APIClient, pump: EventPump, options: ScreenShareOptions) {
        self.api = api
        self.pump = pump
        self._options = options
        pump.observe { [weak self] event in
            guard let self, let (id, state) = Self.stateChange(event) else { return }
            self.lock.withLock { if self.session?.id == id { self.session?.state = state } }
        }
    }

    public var options: ScreenShareOptions { lock.withLock { _options } }

    /// The session this service works on (the last created), if any.
    public var currentSession: ScreenShareResponse? { lock.withLock { session } }

    /// The current session's state; `none` without one.
    public var state: ScreenShareServiceState { lock.withLock { session?.state ?? ScreenShareServiceState.none } }

    /// The states of this service's sessions as they change (seed 002's `statePublisher`).
    public func states() -> AsyncStream<ScreenShareServiceState> {
        pump.subscribe { [weak self] event in
            guard let (id, state) = Self.stateChange(event), id == self?.currentSession?.id else { return nil }
            return state
        }
    }

    /// The agent's requests for consent (seed 002's `requestPublisher`): `session` (start
    /// sharing, for a share the end user initiated) and `remoteControl`.
    public func requests() -> AsyncStream<ScreenShareRequestType> {
        pump.subscribe { event in
            guard event.name == PlatformEventName.screenShareRequest.rawValue else { return nil }
            return (try? event.data.decoded(as: ScreenShareRequestPayload.self))?.type
        }
    }

    /// A `screen_share_state` event's session and state.
    private static func stateChange(_ event: PlatformEvent) -> (Int, ScreenShareServiceState)? {
        guard event.name == PlatformEventName.screenShareState.rawValue,
              let change = try? event.data.decoded(as: ScreenShareStatePayload.self)
        else { return nil }
        return (change.sessionId, change.state)
    }

    /// Creates a session for a chat that was started screen-shareable (`pending`, with its
    /// code). A chat with a session under way is a `conflict`.
    @discardableResult
    public func create(request: ScreenShareRequest) async throws -> ScreenShareResponse {
        let created = try await api.send(Endpoints.createScreenShare, body: request, as: ScreenShareResponse.self)
        lock.withLock { session = created }
        return created
    }

    /// Starts (`accepted`) or declines the session the agent joined (`authorizing`).
    @discardableResult
    public func activate(accepted: Bool = true) async throws -> ScreenShareResponse {
        try await update(Endpoints.activateScreenShare, body: ["accepted": accepted])
    }

    /// Answers the agent's remote-control request.
    @discardableResult
    public func enableRemoteControl(_ enabled: Bool) async throws -> ScreenShareResponse {
        try await update(Endpoints.screenShareRemoteControl, body: ["enabled": enabled])
    }

    /// Lets the agent see the whole device rather than the app.
    @discardableResult
    public func enableFullDeviceSharing(_ enabled: Bool) async throws -> ScreenShareResponse {
        try await update(Endpoints.screenShareOptions, body: ["full_device": enabled])
    }

    /// Replaces the options (the key and domain of later sessions).
    public func updateOptions(_ options: ScreenShareOptions) {
        lock.withLock { _options = options }
    }

    /// Ends the session (`ended`).
    @discardableResult
    public func end() async throws -> ScreenShareResponse {
        try await update(Endpoints.endScreenShare, body: nil as [String: Bool]?)
    }

    /// Forgets the session: the state is `none` again.
    public func clear() {
        lock.withLock { session = nil }
    }

    private func update(_ endpoint: Endpoint, body: [String: Bool]?) async throws -> ScreenShareResponse {
        guard let current = currentSession else {
            throw ScreenShareError.noSession
        }
        let updated = try await api.send(endpoint, ["id": current.id], body: body, as: ScreenShareResponse.self)
        lock.withLock { if session?.id == updated.id { session = updated } }
        return updated
    }
}
