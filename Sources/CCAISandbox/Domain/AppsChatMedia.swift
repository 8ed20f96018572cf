import CCAIWire
import Foundation
import Timekeeping

/// Photos and videos of the Apps API's chats (docs/platform-fidelity.md): the company's
/// server asks for a pre-signed upload URL, `PUT`s the file there, and adds it to the chat
/// as its end user's message; it lists a chat's photos or videos, from both sides, each
/// with a pre-signed download URL. The file's rules (types, sizes, quotas) are
/// ``ChatFiles``' own, and the message is the SDK's, so agents, plugins and transcripts
/// see it. URLs are signed with a key the sandbox draws when it starts (``URLSignature``):
/// they stop working when it restarts.
struct AppsChatMedia: Sendable {
    /// How long a download URL works: 15 minutes (our choice).
    static let downloadLifetime: TimeInterval = 15 * 60

    let appsChats: AppsChats
    let store: SandboxStore
    let files: ChatFiles
    let uploads: AppsUploads
    let signature: URLSignature
    let clock: any TimeSource

    /// A pre-signed URL to `PUT` a `kind` file of `contentType` (the kind's default when
    /// nil) to, for a chat in progress the server started. `origin` is the scheme and host
    /// the URL starts with (`http://127.0.0.1:8080`; empty for a path alone).
    func uploadURL(_ kind: AppsMediaKind, chatID: Int, contentType: String?, origin: String) async throws -> AppsUploadURL {
        let (chat, _) = try await appsChats.serverChat(chatID)
        try chat.requireInProgress()
        let rule = try Self.rule(kind)
        let type = (contentType ?? kind.defaultContentType).lowercased()
        try rule.check(mimeType: type)
        let upload = try uploads.issue(chatID: chatID, kind: kind, contentType: type, now: clock.now())
        let query = signature.query(for: Self.fields(upload), expires: Self.seconds(upload.urlExpiresAt))
        return AppsUploadURL(uploadId: upload.id, url: origin + Endpoints.appsPutUpload.path(["upload_id": upload.id]) + "?" + query,
                             contentType: type, maxBytes: rule.limit,
                             expiresAt: AppsChatRenderer.timestamp(upload.urlExpiresAt.timeIntervalSince1970))
    }

    /// Why a `PUT` to an upload URL is refused before its body is read, or nil: an unknown
    /// upload, a URL not signed for it or expired (403), a declared body over the kind's
    /// limit (413).
    func uploadRefusal(_ parameters: [String: String], _ query: [String: String], _ contentLength: Int64?) -> HTTPError? {
        guard let id = parameters["upload_id"], let upload = uploads.upload(id, now: clock.now()) else {
            return .forbidden("the URL names no upload in progress: it expired, or was never issued")
        }
        if let problem = signature.problem(query, for: Self.fields(upload), now: clock.now()) {
            return .forbidden(problem.description)
        }
        guard let contentLength else { return nil }
        do {
            try Self.rule(upload.kind).check(size: Int(clamping: contentLength))
            return nil
        } catch let refusal as HTTPError {
            return refusal
        } catch {
            return .internalError(String(describing: error))
        }
    }

    /// Keeps the file `PUT` to upload `id` (its URL checked by ``uploadRefusal(_:_:_:)``):
    /// its `Content-Type` must be the one the URL was signed for.
    func receive(_ data: Data, contentType: String, in id: String) throws {
        guard let upload = uploads.upload(id, now: clock.now()) else { throw AppsUploads.gone(id) }
        guard contentType == upload.contentType else {
            throw HTTPError.badRequest("Content-Type: this URL is signed for '\(upload.contentType)', got '\(TerminalText.escaped(contentType))'")
        }
        let rule = try Self.rule(upload.kind)
        guard !data.isEmpty else { throw HTTPError.badRequest("the \(rule.noun) is empty") }
        try rule.check(size: data.count)
        try uploads.store(data, in: id, now: clock.now())
    }

    /// Adds upload `request.uploadId`'s file to chat `chatID` as its end user's message;
    /// `isNew` is false when it was added before (the same media again).
    func add(_ kind: AppsMediaKind, chatID: Int, _ request: AppsAddMediaRequest, origin: String) async throws
        -> (media: AppsMedia, isNew: Bool)
    {
        let (chat, owner) = try await appsChats.serverChat(chatID)
        let now = clock.now()
        guard let upload = uploads.upload(request.uploadId, now: now), upload.chatID == chatID else {
            throw AppsUploads.gone(request.uploadId)
        }
        guard upload.kind == kind else {
            throw HTTPError.conflict("upload '\(upload.id)' is a \(upload.kind.rawValue)'s: add it with POST "
                                     + upload.kind.addEndpoint.path(["id": chatID]))
        }
        if let added = upload.added { return (try media(added, origin: origin), false) }
        guard let data = upload.data else {
            throw HTTPError.conflict("nothing was uploaded to '\(upload.id)' yet: PUT the file to its URL first")
        }
        guard let user = try await store.endUser(id: owner) else { throw HTTPError.notFound("there is no chat \(chatID)") }
        let file = ChatFiles.Upload(kind: Self.uploadKind(kind), mimeType: upload.contentType, name: request.name,
                                    clientMessageID: "apps-upload-" + upload.id, data: data)
        let (message, isNew) = try await files.receive(file, in: chat, from: Caller(token: "", endUser: user, signedCustomData: [:]))
        uploads.markAdded(upload.id, as: message)
        return (try media(message, origin: origin), isNew)
    }

    /// The chat's photos or videos, oldest first, whoever sent them.
    func list(_ kind: AppsMediaKind, chatID: Int, origin: String) async throws -> [AppsMedia] {
        _ = try await appsChats.anyChat(chatID)
        return try await store.mediaMessages(chatID: chatID, type: kind.mediaType).map { try media($0, origin: origin) }
    }

    /// Why a download URL is refused before anything is read, or nil.
    func downloadRefusal(_ parameters: [String: String], _ query: [String: String], _ contentLength: Int64?) -> HTTPError? {
        guard let id = parameters["id"], let number = Int(id), number > 0 else {
            return .forbidden("the URL names no media: a positive integer id expected")
        }
        return signature.problem(query, for: ["media", String(number)], now: clock.now()).map { HTTPError.forbidden($0.description) }
    }

    /// A file with its bytes (its URL checked by ``downloadRefusal(_:_:_:)``).
    func download(_ id: Int) async throws -> (media: ChatMedia, data: Data) {
        guard let found = try await store.media(id: id, endUserID: nil) else { throw HTTPError.notFound("there is no media \(id)") }
        return found
    }

    /// A message's file as the Apps API lists it, with a download URL signed from now.
    private func media(_ message: ChatMessage, origin: String) throws -> AppsMedia {
        guard let media = message.media else { throw HTTPError.internalError("message \(message.id) carries no file") }
        let expires = clock.now() + Self.downloadLifetime
        let url = origin + Endpoints.appsDownloadMedia.path(["id": media.id]) + "?"
            + signature.query(for: ["media", String(media.id)], expires: Self.seconds(expires))
        return AppsMedia(id: media.id, messageId: message.id, name: media.name, mimeType: media.mimeType, size: media.size,
                         createdAt: AppsChatRenderer.timestamp(message.createdAt),
                         sender: AppsMessage.Sender(type: message.sender.type.rawValue, name: message.sender.name),
                         url: url, urlExpiresAt: AppsChatRenderer.timestamp(expires.timeIntervalSince1970))
    }

    /// What an upload URL is signed for: the upload, its chat, its kind and its MIME type.
    private static func fields(_ upload: AppsUploads.Upload) -> [String] {
        ["upload", upload.id, String(upload.chatID), upload.kind.rawValue, upload.contentType]
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(Checked.truncated(date.timeIntervalSince1970.rounded(.up)) ?? 0)
    }

    /// The SDK's upload kind of a kind: `image`, `video`.
    private static func uploadKind(_ kind: AppsMediaKind) -> String {
        switch kind {
        case .photo: "image"
        case .video: "video"
        }
    }

    private static func rule(_ kind: AppsMediaKind) throws -> ChatFiles.UploadRule {
        try ChatFiles.UploadRule(kind: uploadKind(kind))
    }
}
