import CCAIWire
import Foundation

/// Files in chats: `POST /chats/{id}/media?kind=image|video` uploads the end user's
/// photo or video (the body is the file, `Content-Type` its MIME type; `name`,
/// `client_message_id` and `smart_action_id` are optional query parameters) within the
/// seeds' limits, and `GET /media/{id}` downloads a file of one of the caller's chats
/// with its name in `Content-Disposition`.
struct MediaRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.uploadMedia, upload),
            (Endpoints.downloadMedia, downloadMedia),
        ], sessions: sandbox)
    }

    private func downloadMedia(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let id = try request.integerParameter("id", "media id")
        guard let (media, data) = try await sandbox.store.media(id: id, endUserID: try session.endUserID()) else {
            throw HTTPError.notFound("there is no media \(id)")
        }
        var headers = ["Content-Type": media.mimeType, "X-Content-Type-Options": "nosniff"]
        if let name = media.name { headers["Content-Disposition"] = ContentDisposition.attachment(named: name) }
        return HTTPResponse(status: 200, headers: headers, body: data)
    }

    private func upload(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        try chat.requireInProgress()
        let (type, limit, noun, accepted): (ChatMediaType, Int, String, Set<String>)
        switch request.query["kind"] {
        case "image": (type, limit, noun, accepted) = (.photo, AttachmentLimits.imageBytes, "image", ChatMediaType.endUserImageTypes)
        case "video": (type, limit, noun, accepted) = (.video, AttachmentLimits.videoBytes, "video", ChatMediaType.endUserVideoTypes)
        default: throw HTTPError.badRequest("kind: 'image' or 'video' expected, got '\(request.query["kind"] ?? "")'")
        }
        let mimeType = (request.headers["content-type"] ?? "").split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard accepted.contains(mimeType) else {
            throw HTTPError.badRequest("Content-Type: an \(noun) type (\(accepted.sorted().joined(separator: ", "))) expected, got '\(mimeType)'")
        }
        if let name = request.query["name"], let problem = FileName.problem(name) {
            throw HTTPError.badRequest("name: \(problem)")
        }
        guard !request.body.isEmpty else { throw HTTPError.badRequest("the \(noun) is empty") }
        guard request.body.count <= limit else {
            throw HTTPError(status: 413, code: .tooLarge,
                            message: "the \(noun) is \(AttachmentLimits.megabytes(request.body.count)) (\(request.body.count) bytes); \(noun)s may be at most \(AttachmentLimits.megabytes(limit)) (\(limit) bytes)")
        }
        let clientMessageID = request.query["client_message_id"].flatMap { $0.isEmpty ? nil : $0 }
        if let clientMessageID, let sent = try await sandbox.store.message(chatID: chat.id, clientMessageID: clientMessageID) {
            return try .json(sent)
        }
        let action = try await smartAction(request, chat: chat, type: type)
        let owner = try session.endUserID()
        try await sandbox.checkQuota(.uploads, endUserID: owner)
        try await sandbox.checkQuota(.uploadBytes, endUserID: owner, adding: request.body.count)
        let now = sandbox.clock.now()
        let media = try await sandbox.store.addMedia(chatID: chat.id, type: type, name: request.query["name"], mimeType: mimeType,
                                                     data: request.body, now: now)
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chat.id, sender: ChatMessageSender(type: "end_user", name: session.endUser.name), type: "media", text: nil,
            event: nil, media: media, smartActionID: action?.id, clientMessageID: clientMessageID, now: now)
        if let action {
            _ = try await sandbox.store.addSmartActionResult(id: action.id, chatID: chat.id, SmartActionResult(mediaIds: [media.id]),
                                                             now: now)
        }
        try await sandbox.publisher.messages([message], endUserID: owner)
        await sandbox.agentDesk.messageReceived(message, in: chat, endUserID: owner, sandbox: sandbox)
        return try .json(message, status: 201)
    }

    /// The smart action an upload answers (`smart_action_id`), checked against the kind.
    private func smartAction(_ request: HTTPRequest, chat: ChatResponse, type: ChatMediaType) async throws -> SmartAction? {
        guard let text = request.query["smart_action_id"] else { return nil }
        guard let id = Int(text) else { throw HTTPError.badRequest("smart_action_id: an integer expected, got '\(text)'") }
        guard let action = try await sandbox.store.smartAction(id: id, chatID: chat.id) else {
            throw HTTPError.notFound("chat \(chat.id) has no smart action \(id)")
        }
        let fits: Set<SmartActionType> = type == .photo ? [.photo, .screenshot] : [.video]
        guard fits.contains(action.type) else {
            throw HTTPError.badRequest("smart action \(id) asks for a \(action.type.rawValue), not a \(type == .photo ? "image" : "video")")
        }
        guard !action.status.isFinal else { throw HTTPError.conflict("smart action \(id) is \(action.status.rawValue) already") }
        return action
    }
}
