import CCAIWire
import Foundation

/// A file on its way to the platform, checked against the limits before anything is sent.
struct Upload: Sendable {
    /// `image` or `video` (the upload's `kind`).
    let kind: String
    let mimeType: String
    let fileName: String?
    let data: @Sendable () throws -> Data

    /// An image, compressed when it is over the limit; `too_large` if it still is.
    init(image: UploadableImage, number: Int) throws {
        guard image.mimeType.lowercased().hasPrefix("image/") else {
            throw CCAIError.invalidArgument("image \(number): an image MIME type such as image/jpeg expected, got '\(image.mimeType)'")
        }
        guard !image.data.isEmpty else { throw CCAIError.invalidArgument("image \(number) is empty") }
        var bytes = image.data
        if bytes.count > AttachmentLimits.imageBytes { bytes = ImageCompressor.compress(bytes, mimeType: image.mimeType) }
        guard bytes.count <= AttachmentLimits.imageBytes else {
            throw CCAIError(code: .tooLarge,
                            message: "image \(number) is \(AttachmentLimits.megabytes(bytes.count)) after compression; images may be at most \(AttachmentLimits.megabytes(AttachmentLimits.imageBytes))")
        }
        let data = bytes
        kind = "image"
        mimeType = image.mimeType
        fileName = image.fileName
        self.data = { data }
    }

    /// A video file, read when it is sent; `too_large` over 20 MB.
    init(video: UploadableVideo, number: Int) throws {
        guard video.mimeType.lowercased().hasPrefix("video/") else {
            throw CCAIError.invalidArgument("video \(number): a video MIME type such as video/mp4 expected, got '\(video.mimeType)'")
        }
        let path = video.url.path
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            throw CCAIError.invalidArgument("video \(number): cannot read '\(path)'")
        }
        guard size > 0 else { throw CCAIError.invalidArgument("video \(number) ('\(path)') is empty") }
        guard size <= AttachmentLimits.videoBytes else {
            throw CCAIError(code: .tooLarge,
                            message: "video \(number) is \(AttachmentLimits.megabytes(size)); videos may be at most \(AttachmentLimits.megabytes(AttachmentLimits.videoBytes))")
        }
        kind = "video"
        mimeType = video.mimeType
        fileName = video.url.lastPathComponent
        data = {
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CCAIError.invalidArgument("video \(number): cannot read '\(path)': \(error.localizedDescription)")
            }
        }
    }
}
