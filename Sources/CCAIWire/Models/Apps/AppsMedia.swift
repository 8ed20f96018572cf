/// The two kinds of file the Apps API adds to a chat and lists (the public "chat platform
/// API endpoints" page names its photo and video endpoints; the paths and fields are our
/// choice: docs/platform-fidelity.md).
public enum AppsMediaKind: String, CaseIterable, Codable, Sendable {
    case photo
    case video

    /// The path segment of the kind's routes: `photos`, `videos`.
    public var plural: String { rawValue + "s" }

    /// The MIME type an upload URL is signed for when the request names none (our choice).
    public var defaultContentType: String {
        switch self {
        case .photo: "image/jpeg"
        case .video: "video/mp4"
        }
    }

    /// The type of the files of this kind in a chat.
    public var mediaType: ChatMediaType {
        switch self {
        case .photo: .photo
        case .video: .video
        }
    }

    /// `GET /apps/api/v1/chats/{id}/photos/upload_url` (or `videos`).
    public var uploadURLEndpoint: Endpoint { self == .photo ? Endpoints.appsPhotoUploadURL : Endpoints.appsVideoUploadURL }
    /// `POST /apps/api/v1/chats/{id}/photos` (or `videos`).
    public var addEndpoint: Endpoint { self == .photo ? Endpoints.appsAddPhoto : Endpoints.appsAddVideo }
    /// `GET /apps/api/v1/chats/{id}/photos` (or `videos`).
    public var listEndpoint: Endpoint { self == .photo ? Endpoints.appsPhotos : Endpoints.appsVideos }
}

/// The answer of `GET /apps/api/v1/chats/{id}/photos/upload_url` (and `videos`): where to
/// `PUT` the file, until when, and the `upload_id` that adds it to the chat afterwards.
public struct AppsUploadURL: Codable, Equatable, Sendable {
    public var uploadId: String
    /// The pre-signed URL: absolute, built from the request's `Host`.
    public var url: String
    /// Always `PUT`.
    public var method: String
    /// The `Content-Type` the `PUT` must send: the URL is signed for it.
    public var contentType: String
    /// The largest file the URL takes, in bytes (the kind's limit).
    public var maxBytes: Int
    /// When the URL stops working (ISO 8601).
    public var expiresAt: String

    enum CodingKeys: String, CodingKey {
        case url, method
        case uploadId = "upload_id"
        case contentType = "content_type"
        case maxBytes = "max_bytes"
        case expiresAt = "expires_at"
    }

    public init(uploadId: String, url: String, method: String = "PUT", contentType: String, maxBytes: Int, expiresAt: String) {
        self.uploadId = uploadId
        self.url = url
        self.method = method
        self.contentType = contentType
        self.maxBytes = maxBytes
        self.expiresAt = expiresAt
    }
}

/// The body of `POST /apps/api/v1/chats/{id}/photos` (and `videos`): the upload to add,
/// and the file name shown, wrapped in `photo`/`video` or at the top.
public struct AppsAddMediaRequest: Codable, Equatable, Sendable {
    public var uploadId: String
    public var name: String?

    enum CodingKeys: String, CodingKey {
        case name
        case uploadId = "upload_id"
    }

    public init(uploadId: String, name: String? = nil) {
        self.uploadId = uploadId
        self.name = name
    }
}

/// A photo or video of a chat, as the Apps API lists it: who sent it, and a pre-signed
/// `url` its bytes download from until `url_expires_at`.
public struct AppsMedia: Codable, Equatable, Sendable {
    public var id: Int
    /// The message that carries it.
    public var messageId: Int?
    public var name: String?
    public var mimeType: String
    public var size: Int
    public var createdAt: String
    public var sender: AppsMessage.Sender?
    public var url: String
    public var urlExpiresAt: String

    enum CodingKeys: String, CodingKey {
        case id, name, size, sender, url
        case messageId = "message_id"
        case mimeType = "mime_type"
        case createdAt = "created_at"
        case urlExpiresAt = "url_expires_at"
    }

    public init(id: Int, messageId: Int?, name: String?, mimeType: String, size: Int, createdAt: String,
                sender: AppsMessage.Sender?, url: String, urlExpiresAt: String) {
        self.id = id
        self.messageId = messageId
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.createdAt = createdAt
        self.sender = sender
        self.url = url
        self.urlExpiresAt = urlExpiresAt
    }
}
