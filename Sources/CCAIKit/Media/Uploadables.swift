import CCAIWire
import Foundation

/// An image to send (seed 001): its bytes and MIME type (`image/jpeg`, `image/png`...).
public struct UploadableImage: Sendable, Equatable {
    public let data: Data
    public let mimeType: String
    /// The file name the agent sees (optional).
    public let fileName: String?

    public init(data: Data, mimeType: String, fileName: String? = nil) {
        self.data = data
        self.mimeType = mimeType
        self.fileName = fileName
    }
}

/// A video to send (seed 001): a file URL (the video is read when it is sent, never held
/// while waiting) and its MIME type (`video/mp4`...).
public struct UploadableVideo: Sendable, Equatable {
    public let url: URL
    public let mimeType: String

    public init(url: URL, mimeType: String) {
        self.url = url
        self.mimeType = mimeType
    }
}

/// A downloaded file (seed 003): its bytes and, when the platform gave one, its name.
public struct DownloadMediaResponse: Sendable, Equatable {
    public let data: Data
    public let fileName: String?

    public init(data: Data, fileName: String?) {
        self.data = data
        self.fileName = fileName
    }
}
