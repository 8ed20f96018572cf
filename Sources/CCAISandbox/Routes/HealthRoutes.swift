import CCAIWire
import Foundation

/// `GET /healthz`: `{"status":"ok"}` without a token, for the probes of a load balancer or
/// of Kubernetes (deploy/kubernetes/sandbox.yaml). It says the server answers; it reads
/// nothing of the store and tells nothing of the company.
struct HealthRoutes: Sendable {
    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.health, health)
    }

    private func health(_: HTTPRequest) async throws -> HTTPResponse {
        try .json(HealthResponse(status: "ok"))
    }
}

/// What `GET /healthz` answers.
struct HealthResponse: Encodable {
    var status: String
}
