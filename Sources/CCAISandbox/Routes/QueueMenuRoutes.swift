import CCAIWire

/// `GET /queue_menus`, `GET /queue_menus/{id}/wait_times` and `GET
/// /queue_menus/{id}/audible_messages` (`?language=` as for the menus).
struct QueueMenuRoutes: Sendable {
    let callers: CallerResolver
    let queues: Queues

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.queueMenus, queueMenus),
            (Endpoints.waitTimes, waitTimes),
            (Endpoints.audibleMessages, audibleMessages),
        ], callers: callers)
    }

    private func audibleMessages(_ request: HTTPRequest, _: Caller) async throws -> HTTPResponse {
        let menu = try queues.menu(try request.integerParameter("id", "menu id"))
        return try .json(queues.audibleMessages(menu, language: request.query["language"]))
    }

    /// Encoded once for each state of the queues (``QueueMenuEncodings``).
    private func queueMenus(_ request: HTTPRequest, _: Caller) async throws -> HTTPResponse {
        let key = request.query["key"].flatMap { $0.isEmpty ? nil : $0 }
        let language = request.query["language"]
        let engine = try await queues.engine()
        let body = try queues.menuEncodings.body(for: engine.menusKey(key: key, language: language)) {
            try HTTPResponse.encoder.encode(engine.menus(key: key, language: language))
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }

    private func waitTimes(_ request: HTTPRequest, _: Caller) async throws -> HTTPResponse {
        let menu = try queues.menu(try request.integerParameter("id", "menu id"))
        return try .json(try await queues.engine().waitTimes(menu))
    }
}
