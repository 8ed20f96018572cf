/// The kind of a media file in a chat (seed 003's `media.type`): how an app shows it.
public enum ChatMediaType: String, Codable, Hashable, Sendable, CaseIterable {
    case photo
    case video
    case audio
    case document

    /// The agent-sendable file types of seed 003 (19, in four categories) by MIME type.
    public static let agentFileTypes: [String: (type: ChatMediaType, extensions: [String])] = [
        "image/jpeg": (.photo, ["jpg", "jpeg"]), "image/png": (.photo, ["png"]), "image/gif": (.photo, ["gif"]),
        "image/webp": (.photo, ["webp"]),
        "video/mp4": (.video, ["mp4"]), "video/quicktime": (.video, ["mov"]), "video/x-msvideo": (.video, ["avi"]),
        "video/x-ms-wmv": (.video, ["wmv"]), "video/webm": (.video, ["webm"]),
        "audio/mpeg": (.audio, ["mp3"]), "audio/wav": (.audio, ["wav"]), "audio/mp4": (.audio, ["m4a"]),
        "audio/webm": (.audio, ["weba"]),
        "application/pdf": (.document, ["pdf"]), "application/msword": (.document, ["doc"]),
        "application/vnd.ms-excel": (.document, ["xls"]), "application/vnd.ms-powerpoint": (.document, ["ppt"]),
        "text/csv": (.document, ["csv"]), "text/plain": (.document, ["txt"]),
    ]

    /// The MIME types an end user's image upload may have: the platform's image types and
    /// HEIC/HEIF (a phone camera's). Nothing a browser would run (`image/svg+xml`).
    public static let endUserImageTypes: Set<String> = Set(agentFileTypes.filter { $0.value.type == .photo }.keys)
        .union(["image/heic", "image/heif"])
    /// The MIME types an end user's video upload may have: the platform's video types.
    public static let endUserVideoTypes: Set<String> = Set(agentFileTypes.filter { $0.value.type == .video }.keys)
}

/// The metadata of a media file in a chat message; `downloadMedia` fetches its bytes.
public struct ChatMedia: Codable, Equatable, Sendable {
    public var id: Int
    public var type: ChatMediaType
    /// The file name shown to the user.
    public var name: String?
    public var mimeType: String
    /// Bytes.
    public var size: Int

    enum CodingKeys: String, CodingKey {
        case id, type, name, size
        case mimeType = "mime_type"
    }

    public init(id: Int, type: ChatMediaType, name: String?, mimeType: String, size: Int) {
        self.id = id
        self.type = type
        self.name = name
        self.mimeType = mimeType
        self.size = size
    }
}
