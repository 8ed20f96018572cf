import CCAIWire

/// `GET /queue_menus`, `GET /queue_menus/{id}/wait_times` and `GET
/// /queue_menus/{id}/audible_messages` (`?language=` as for the menus).
struct QueueMenuRoutes: Sendable {
    let sessions: SessionResolver
    let queues: Queues

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.queueMenus, queueMenus),
            (Endpoints.waitTimes, waitTimes),
            (Endpoints.audibleMessages, audibleMessages),
        ], sessions: sessions)
    }

    private func audibleMessages(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let menu = try queues.menu(try request.integerParameter("id", "menu id"))
        return try .json(queues.audibleMessages(menu, language: request.query["language"]))
    }

    private func queueMenus(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let key = request.query["key"].flatMap { $0.isEmpty ? nil : $0 }
        return try .json(try await queues.engine().menus(key: key, language: request.query["language"]))
    }

    private func waitTimes(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let menu = try queues.menu(try request.integerParameter("id", "menu id"))
        return try .json(try await queues.engine().waitTimes(menu))
    }
}
