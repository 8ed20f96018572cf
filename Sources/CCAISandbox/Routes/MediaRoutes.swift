import CCAIWire
import Foundation

/// Files in chats: `POST /chats/{id}/media?kind=image|video` uploads the end user's
/// photo or video (the body is the file, `Content-Type` its MIME type; `name`,
/// `client_message_id` and `smart_action_id` are optional query parameters), and
/// `GET /media/{id}` downloads a file of one of the caller's chats with its name in
/// `Content-Disposition`. The rules are ``ChatFiles``'.
struct MediaRoutes: Sendable {
    let callers: CallerResolver
    let files: ChatFiles

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.uploadMedia, upload),
            (Endpoints.downloadMedia, download),
        ], callers: callers)
    }

    private func download(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let (media, data) = try await files.download(try request.integerParameter("id", "media id"), endUserID: try caller.endUserID())
        var headers = ["Content-Type": media.mimeType, "X-Content-Type-Options": "nosniff"]
        if let name = media.name { headers["Content-Disposition"] = ContentDisposition.attachment(named: name) }
        return HTTPResponse(status: 200, headers: headers, body: data)
    }

    private func upload(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        let mimeType = (request.headers["content-type"] ?? "").split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        var smartActionID: Int?
        if let text = request.query["smart_action_id"] {
            guard let id = Int(text) else { throw HTTPError.badRequest("smart_action_id: an integer expected, got '\(text)'") }
            smartActionID = id
        }
        let upload = ChatFiles.Upload(kind: request.query["kind"], mimeType: mimeType, name: request.query["name"],
                                      clientMessageID: request.query["client_message_id"].flatMap { $0.isEmpty ? nil : $0 },
                                      smartActionID: smartActionID, data: request.body)
        let (message, isNew) = try await files.receive(upload, in: chat, from: caller)
        return try .json(message, status: isNew ? 201 : 200)
    }
}
