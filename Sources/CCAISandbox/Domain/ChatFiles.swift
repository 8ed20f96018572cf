import CCAIWire
import Foundation
import Timekeeping

/// Files in chats: the end user's photos and videos (within the seeds' limits and
/// `limits`' upload quotas, optionally answering a smart action), the files agents send
/// (the 19 agent file types of seed 003), and downloads of a chat's files by its end user.
///
/// ```swift
/// let upload = ChatFiles.Upload(kind: "image", mimeType: "image/png", name: "receipt.png", data: bytes)
/// let (message, isNew) = try await files.receive(upload, in: chat, from: session)
/// ```
struct ChatFiles: Sendable {
    /// A file the end user sends: `kind` is `image` or `video`; `smartActionID` names the
    /// smart action it answers, if any.
    struct Upload: Sendable {
        var kind: String?
        var mimeType: String
        var name: String?
        var clientMessageID: String?
        var smartActionID: Int?
        var data: Data
    }

    /// What an end user's upload of one kind may be: its media type, the largest size, the
    /// MIME types accepted, and the word messages name it by.
    struct UploadRule: Sendable {
        var type: ChatMediaType
        var limit: Int
        var accepted: Set<String>
        var noun: String

        /// The rule of `kind` (`image` or `video`), or a 400 naming the kinds.
        init(kind: String?) throws {
            switch kind {
            case "image": self.init(type: .photo, limit: AttachmentLimits.imageBytes, accepted: ChatMediaType.endUserImageTypes, noun: "image")
            case "video": self.init(type: .video, limit: AttachmentLimits.videoBytes, accepted: ChatMediaType.endUserVideoTypes, noun: "video")
            default: throw HTTPError.badRequest("kind: 'image' or 'video' expected, got '\(kind ?? "")'")
            }
        }

        private init(type: ChatMediaType, limit: Int, accepted: Set<String>, noun: String) {
            (self.type, self.limit, self.accepted, self.noun) = (type, limit, accepted, noun)
        }

        /// A 400 unless `mimeType` is one of the kind's.
        func check(mimeType: String) throws {
            guard accepted.contains(mimeType) else {
                throw HTTPError.badRequest("Content-Type: an \(noun) type (\(accepted.sorted().joined(separator: ", "))) expected, got '\(mimeType)'")
            }
        }

        /// A 413 unless `size` bytes are within the kind's limit.
        func check(size: Int) throws {
            guard size <= limit else {
                throw HTTPError(status: 413, code: .tooLarge,
                                message: "the \(noun) is \(AttachmentLimits.megabytes(size)) (\(size) bytes); \(noun)s may be at most \(AttachmentLimits.megabytes(limit)) (\(limit) bytes)")
            }
        }
    }

    let store: SandboxStore
    let conversation: Conversation
    let smartActions: SmartActions
    let quotas: Quotas
    let clock: any TimeSource

    /// Stores the end user's upload in a chat in progress and posts it as a `media`
    /// message; `isNew` is false for a client message id sent before (nothing is stored).
    func receive(_ upload: Upload, in chat: ChatResponse, from caller: Caller) async throws -> (message: ChatMessage, isNew: Bool) {
        try chat.requireInProgress()
        let rule = try UploadRule(kind: upload.kind)
        let type = rule.type
        try rule.check(mimeType: upload.mimeType)
        if let name = upload.name, let problem = FileName.problem(name) { throw HTTPError.badRequest("name: \(problem)") }
        guard !upload.data.isEmpty else { throw HTTPError.badRequest("the \(rule.noun) is empty") }
        try rule.check(size: upload.data.count)
        if let clientMessageID = upload.clientMessageID,
            let sent = try await conversation.message(in: chat.id, clientMessageID: clientMessageID)
        {
            return (sent, false)
        }
        var action: SmartAction?
        if let id = upload.smartActionID { action = try await smartActions.answeredByUpload(id, of: type, inChat: chat.id) }
        let owner = try caller.endUserID()
        try await quotas.check(.uploads, endUserID: owner)
        try await quotas.check(.uploadBytes, endUserID: owner, adding: upload.data.count)
        let media = try await store.addMedia(chatID: chat.id, type: type, name: upload.name, mimeType: upload.mimeType,
                                             data: upload.data, now: clock.now())
        if let action { try await smartActions.attach(media, to: action) }
        return try await conversation.postForAgents(
            .init(sender: ChatMessageSender(type: .endUser, name: caller.endUser.name), type: .media, media: media,
                  smartActionID: action?.id, clientMessageID: upload.clientMessageID),
            in: chat, endUserID: owner)
    }

    /// The type of a file an agent sends, checked: one of the 19 agent file types (seed
    /// 003) by MIME type, a file name (not a path) with a matching extension, not empty
    /// and within the video limit.
    static func agentFileType(name: String, mimeType: String, size: Int) throws -> ChatMediaType {
        guard let (type, extensions) = ChatMediaType.agentFileTypes[mimeType.lowercased()] else {
            throw HTTPError.badRequest("mime_type: one of the agent file types expected ("
                                       + ChatMediaType.agentFileTypes.keys.sorted().joined(separator: ", ") + "), got '\(mimeType)'")
        }
        if let problem = FileName.problem(name) { throw HTTPError.badRequest("name: \(problem)") }
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased()
        guard extensions.contains(fileExtension) else {
            throw HTTPError.badRequest("name: a file name ending in ." + extensions.joined(separator: " or .")
                                       + " expected for \(mimeType), got '\(name)'")
        }
        guard size > 0, size <= AttachmentLimits.videoBytes else {
            throw HTTPError(code: size == 0 ? .invalidArgument : .tooLarge,
                            message: size == 0 ? "data: the file is empty"
                                : "data: files may be at most \(AttachmentLimits.megabytes(AttachmentLimits.videoBytes)), got \(AttachmentLimits.megabytes(size))")
        }
        return type
    }

    /// Posts a file an agent sends (checked by ``agentFileType(name:mimeType:size:)``) as
    /// a `media` message from `sender`.
    func send(_ type: ChatMediaType, name: String, mimeType: String, data: Data, in chatID: Int, endUserID: Int,
              from sender: ChatMessageSender) async throws -> ChatMessage
    {
        let media = try await store.addMedia(chatID: chatID, type: type, name: name, mimeType: mimeType.lowercased(), data: data,
                                             now: clock.now())
        return try await conversation.post(.init(sender: sender, type: .media, media: media), in: chatID, endUserID: endUserID)
            .message
    }

    /// A file of one of the end user's chats, with its bytes; another user's is not found.
    func download(_ id: Int, endUserID: Int) async throws -> (media: ChatMedia, data: Data) {
        guard let found = try await store.media(id: id, endUserID: endUserID) else { throw HTTPError.notFound("there is no media \(id)") }
        return found
    }
}
