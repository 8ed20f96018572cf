import CCAIWire

/// `GET /queue_menus` and `GET /queue_menus/{id}/wait_times`.
struct QueueMenuRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.queueMenus, queueMenus),
            (Endpoints.waitTimes, waitTimes),
        ], sessions: sandbox)
    }

    private func queueMenus(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let key = request.query["key"].flatMap { $0.isEmpty ? nil : $0 }
        return try .json(try await engine().menus(key: key, language: request.query["language"]))
    }

    private func waitTimes(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        guard let id = Int(request.parameters["id"] ?? "") else {
            throw HTTPError.badRequest("the menu id must be an integer, got '\(request.parameters["id"] ?? "")'")
        }
        guard let menu = sandbox.configuration.allMenus.first(where: { $0.id == id }) else {
            throw HTTPError.notFound("there is no queue menu \(id)")
        }
        return try .json(try await engine().waitTimes(menu))
    }

    private func engine() async throws -> QueueMenuEngine {
        try await sandbox.queueEngine()
    }
}
