import CCAIWire
import Foundation

/// Screen share sessions (seed 002's `screenShareService`): `POST /screen_shares`
/// (create: a code), `GET /screen_shares/{id}`, `POST .../activate` (`accepted`: the end
/// user starts or declines once an agent joined), `POST .../remote_control` (`enabled`),
/// `PUT .../options` (`full_device`), `POST .../end`; and `POST /chats/{id}/screen_share_events`,
/// the screen share events the app sends in the chat: with `screen_share_code_generated`
/// the agent joins (the one who asked, or the chat's agent for a share the end user
/// started). The rules are ``ScreenShares``'.
struct ScreenShareRoutes: Sendable {
    let callers: CallerResolver
    let screenShares: ScreenShares

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.createScreenShare, create),
            (Endpoints.screenShare, screenShare),
            (Endpoints.activateScreenShare, activate),
            (Endpoints.screenShareRemoteControl, remoteControl),
            (Endpoints.screenShareOptions, options),
            (Endpoints.endScreenShare, end),
            (Endpoints.screenShareEvent, event),
        ], callers: callers)
    }

    private func create(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let body = try request.decode(ScreenShareRequest.self)
        return try .json(try await screenShares.create(body, endUserID: try caller.endUserID()), status: 201)
    }

    private func screenShare(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await ownShare(request, caller))
    }

    private func activate(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        struct Consent: Decodable { var accepted: Bool }
        let share = try await ownShare(request, caller)
        let accepted = try request.decode(Consent.self).accepted
        return try .json(try await screenShares.activate(share, accepted: accepted, endUserID: try caller.endUserID()))
    }

    private func remoteControl(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        struct RemoteControl: Decodable { var enabled: Bool }
        let share = try await ownShare(request, caller)
        return try .json(try await screenShares.setRemoteControl(share, enabled: try request.decode(RemoteControl.self).enabled))
    }

    private func options(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        struct Options: Decodable { var fullDevice: Bool; enum CodingKeys: String, CodingKey { case fullDevice = "full_device" } }
        let share = try await ownShare(request, caller)
        return try .json(try await screenShares.setFullDevice(share, try request.decode(Options.self).fullDevice))
    }

    private func end(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let share = try await ownShare(request, caller)
        return try .json(try await screenShares.end(share, endUserID: try caller.endUserID()))
    }

    private func event(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        let body = try request.decode(ScreenShareEventMessage.self)
        let owner = try caller.endUserID()
        let message = try await screenShares.postEvent(body, in: chat, by: caller)
        try await screenShares.codeSent(body, in: chat, endUserID: owner)
        return try .json(message, status: 201)
    }

    /// The session named in the path, when it belongs to one of the caller's chats.
    private func ownShare(_ request: HTTPRequest, _ caller: Caller) async throws -> ScreenShareResponse {
        try await screenShares.session(try request.integerParameter("id", "screen share id"), endUserID: try caller.endUserID())
    }
}
