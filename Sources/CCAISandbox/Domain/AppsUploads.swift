import CCAIWire
import Foundation

/// The Apps API's uploads in progress (docs/platform-fidelity.md): each was issued a
/// pre-signed URL for one chat, one kind and one MIME type; the file `PUT` to it waits here
/// until it is added to the chat. Held in memory, bounded (``maximumPending`` uploads not
/// yet added, ``maximumPendingBytes`` of their files), and forgotten ``keptFor`` after
/// the URL was issued, or when the URL expires if nothing was put to it (all our choices:
/// the public pages do not say).
///
/// ```swift
/// let upload = try uploads.issue(chatID: 7, kind: .photo, contentType: "image/png", now: now)
/// try uploads.store(bytes, in: upload.id, now: now)
/// ```
struct AppsUploads: Sendable {
    /// One upload: what its URL was signed for, then its file, then the message that
    /// added it to the chat.
    struct Upload: Sendable {
        let id: String
        let chatID: Int
        let kind: AppsMediaKind
        let contentType: String
        let issuedAt: Date
        var data: Data?
        /// The message the file became, once added.
        var added: ChatMessage?

        /// When its URL stops taking the file.
        var urlExpiresAt: Date { issuedAt + AppsUploads.urlLifetime }
        /// Whether it still holds a file or the right to one (not yet added).
        var isPending: Bool { added == nil }
    }

    /// How long an upload URL works: 15 minutes.
    static let urlLifetime: TimeInterval = 15 * 60
    /// How long an upload is kept after its URL was issued (to be added, or to answer a
    /// repeated add): an hour.
    static let keptFor: TimeInterval = 60 * 60
    /// Uploads not yet added, at most, for the company.
    static let maximumPending = 64
    /// Bytes of files uploaded and not yet added, at most, for the company: 64 MiB.
    static let maximumPendingBytes = 64 << 20

    private let state = LockedState([String: Upload]())

    /// A new upload for `chatID`, or a 429 when ``maximumPending`` are already waiting.
    func issue(chatID: Int, kind: AppsMediaKind, contentType: String, now: Date) throws -> Upload {
        try state.withLock { uploads in
            Self.prune(&uploads, now: now)
            let pending = uploads.values.filter(\.isPending).count
            guard pending < Self.maximumPending else {
                throw HTTPError(status: 429, code: .limitExceeded,
                                message: "\(pending) uploads are waiting to be added (at most \(Self.maximumPending)): add them to their chats, or let their URLs expire")
            }
            let upload = Upload(id: Self.newID(), chatID: chatID, kind: kind, contentType: contentType, issuedAt: now)
            uploads[upload.id] = upload
            return upload
        }
    }

    /// The upload `id`, unless it is unknown or no longer kept.
    func upload(_ id: String, now: Date) -> Upload? {
        state.withLock { uploads in
            Self.prune(&uploads, now: now)
            return uploads[id]
        }
    }

    /// Keeps `data` as the file of upload `id` (a second `PUT` before it is added replaces
    /// the first); a 409 once it was added, a 429 past ``maximumPendingBytes``.
    func store(_ data: Data, in id: String, now: Date) throws {
        try state.withLock { uploads in
            Self.prune(&uploads, now: now)
            guard let upload = uploads[id] else { throw Self.gone(id) }
            guard upload.isPending else { throw HTTPError.conflict("upload '\(id)' was already added to chat \(upload.chatID)") }
            let held = uploads.values.filter(\.isPending).reduce(0) { $0 + ($1.data?.count ?? 0) } - (upload.data?.count ?? 0)
            guard held + data.count <= Self.maximumPendingBytes else {
                throw HTTPError(status: 429, code: .limitExceeded,
                                message: "uploads waiting to be added hold \(held) bytes; with these \(data.count) they would pass \(Self.maximumPendingBytes): add them to their chats first")
            }
            uploads[id]?.data = data
        }
    }

    /// Records the message upload `id` became and lets its file go.
    func markAdded(_ id: String, as message: ChatMessage) {
        state.withLock { uploads in
            uploads[id]?.added = message
            uploads[id]?.data = nil
        }
    }

    /// The refusal for an upload that is unknown or no longer kept.
    static func gone(_ id: String) -> HTTPError {
        .notFound("there is no upload '\(TerminalText.escaped(String(id.prefix(64))))': unknown, or its URL was issued more than an hour ago")
    }

    /// Forgets uploads past ``keptFor``, and those nothing was put to once their URL
    /// expired (they can never hold a file: they would only take a place).
    private static func prune(_ uploads: inout [String: Upload], now: Date) {
        uploads = uploads.filter { _, upload in
            now < upload.issuedAt + keptFor && (upload.data != nil || upload.added != nil || now < upload.urlExpiresAt)
        }
    }

    /// 16 random bytes in hex: unguessable, so one upload cannot be named for another.
    private static func newID() -> String {
        Digest.randomHex(bytes: 16)
    }
}
