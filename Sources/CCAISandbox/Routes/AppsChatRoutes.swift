import CCAIWire
import Foundation

/// The Apps API's chat platform flow (docs/platform-fidelity.md): `POST /apps/api/v1/chats`,
/// `GET` and `PATCH /apps/api/v1/chats/{id}`, `POST .../message`, `POST .../escalations`
/// and `PATCH .../escalations/{escalation_id}`. The rules are ``AppsChats``'.
struct AppsChatRoutes: Sendable {
    let appsChats: AppsChats

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.appsStartChat, start),
            (Endpoints.appsChat, chat),
            (Endpoints.appsUpdateChat, update),
            (Endpoints.appsSendMessage, sendMessage),
            (Endpoints.appsEscalate, escalate),
            (Endpoints.appsUpdateEscalation, updateEscalation),
        ])
    }

    private func start(_ request: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await appsChats.start(try request.decode(AppsChatRequest.self, wrappedIn: "chat")), status: 201)
    }

    private func chat(_ request: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await appsChats.chat(try request.integerParameter("id", "chat id")))
    }

    private func update(_ request: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await appsChats.update(try request.integerParameter("id", "chat id"), try request.decode(AppsChatUpdate.self)))
    }

    private func sendMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let message = try request.decode(AppsMessageRequest.self, wrappedIn: "message")
        return try .json(try await appsChats.send(message, to: try request.integerParameter("id", "chat id")), status: 201)
    }

    private func escalate(_ request: HTTPRequest) async throws -> HTTPResponse {
        let escalation = request.body.isEmpty ? AppsEscalationRequest()
            : try request.decode(AppsEscalationRequest.self, wrappedIn: "escalation")
        return try .json(try await appsChats.escalate(try request.integerParameter("id", "chat id"), escalation), status: 201)
    }

    private func updateEscalation(_ request: HTTPRequest) async throws -> HTTPResponse {
        let escalation = try request.decode(AppsEscalationRequest.self, wrappedIn: "escalation")
        return try .json(try await appsChats.updateEscalation(try request.integerParameter("id", "chat id"),
                                                              escalationID: try request.integerParameter("escalation_id", "escalation id"),
                                                              escalation))
    }
}
