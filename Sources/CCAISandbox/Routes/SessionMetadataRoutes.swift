import CCAIWire
import Foundation

/// The operator's view of ended sessions' metadata (admin token): `GET
/// /admin/session_metadata/{type}` (a page by session id) and `GET
/// /admin/session_metadata/{type}/{id}` (one record), `type` being `chat` or `call`. The
/// records are ``SessionMetadataExports``'.
struct SessionMetadataRoutes: Sendable {
    let exports: SessionMetadataExports

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.sessionMetadataPage, page)
        router.on(Endpoints.sessionMetadata, record)
    }

    private func page(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.sessionMetadata)
        return try .json(try await exports.page(try kind(request), after: page.after, limit: page.limit))
    }

    private func record(_ request: HTTPRequest) async throws -> HTTPResponse {
        let kind = try kind(request)
        return try .json(try await exports.metadata(kind, id: try request.integerParameter("id", "\(kind.rawValue) id")))
    }

    /// The path's `type`: `chat` or `call`, else a 400 naming what came.
    private func kind(_ request: HTTPRequest) throws -> CommunicationRouter.CommunicationType {
        let text = request.parameters["type"] ?? ""
        guard let kind = CommunicationRouter.CommunicationType(rawValue: text) else {
            throw HTTPError.badRequest("the session type must be 'chat' or 'call', got '\(TerminalText.escaped(String(text.prefix(40))))'")
        }
        return kind
    }
}
