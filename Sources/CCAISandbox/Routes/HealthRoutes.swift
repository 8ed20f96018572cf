import CCAIWire
import Foundation

/// `GET /healthz`: `{"status":"ok"}` without a token, for the probes of a load balancer or
/// of Kubernetes (deploy/kubernetes/sandbox.yaml). It says the server answers and its store
/// has room to write (``StorageRoom``; else a 503 `unavailable` with `Retry-After`); it
/// reads nothing of the store and tells nothing of the company.
struct HealthRoutes: Sendable {
    var room: StorageRoom

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.health, health)
    }

    private func health(_: HTTPRequest) async throws -> HTTPResponse {
        if let problem = room.problem {
            throw HTTPError(code: .unavailable, message: problem, headers: ["Retry-After": String(StorageRoom.retryAfterSeconds)])
        }
        return try .json(HealthResponse(status: "ok"))
    }
}

/// What `GET /healthz` answers.
struct HealthResponse: Encodable {
    var status: String
}
