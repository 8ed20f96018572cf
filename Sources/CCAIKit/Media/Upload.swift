import CCAIWire
import Foundation

/// A file on its way to the platform, checked against the limits before anything is sent.
struct Upload: Sendable {
    /// `image` or `video` (the upload's `kind`).
    let kind: String
    let mimeType: String
    let fileName: String?
    let data: @Sendable () throws -> Data

    /// An image, compressed when it is over the limit (``ImageCompressor``): re-encoded, it
    /// goes as `image/jpeg` and its file name ends in `.jpg`. `too_large` if it cannot be
    /// made to fit, `invalid_argument` if it must be compressed and cannot be decoded.
    init(image: UploadableImage, number: Int) throws {
        guard image.mimeType.lowercased().hasPrefix("image/") else {
            throw CCAIError.invalidArgument("image \(number): an image MIME type such as image/jpeg expected, got '\(image.mimeType)'")
        }
        guard !image.data.isEmpty else { throw CCAIError.invalidArgument("image \(number) is empty") }
        let compressed: ImageCompressor.Compressed
        do {
            compressed = try ImageCompressor.compress(image.data, mimeType: image.mimeType)
        } catch let failure as ImageCompressor.Failure {
            throw Self.error(failure, image: number, bytes: image.data.count)
        }
        let data = compressed.data
        kind = "image"
        mimeType = compressed.mimeType
        fileName = compressed.reencoding == nil ? image.fileName : image.fileName.map(Self.jpegName)
        self.data = { data }
    }

    /// The uploads of `images`, in order; when any is over the limit they are prepared on
    /// the ``CompressionQueue``, off the caller's thread.
    static func prepare(_ images: [UploadableImage]) async throws -> [Upload] {
        let make: @Sendable () throws -> [Upload] = {
            try images.enumerated().map { index, image in try Upload(image: image, number: index + 1) }
        }
        guard images.contains(where: { $0.data.count > AttachmentLimits.imageBytes }) else { return try make() }
        return try await CompressionQueue.run(make)
    }

    /// What the caller is told when image `number` (of `bytes`) cannot be made to fit.
    static func error(_ failure: ImageCompressor.Failure, image number: Int, bytes: Int) -> CCAIError {
        let limit = AttachmentLimits.megabytes(AttachmentLimits.imageBytes)
        switch failure {
        case .undecodable(let reason):
            return CCAIError.invalidArgument("image \(number) could not be decoded as an image (over \(limit) the SDK re-encodes JPEG, PNG, WebP and HEIC): \(reason)")
        case .tooManyPixels(let width, let height):
            return CCAIError(code: .tooLarge,
                             message: "image \(number) is \(AttachmentLimits.megabytes(bytes)) and \(width) x \(height) pixels, more than the \(ImageCompressor.maximumPixels / 1_000_000) megapixels the SDK decodes to compress it; images may be at most \(limit)")
        case .doesNotFit(let bytes, let last):
            return CCAIError(code: .tooLarge,
                             message: "image \(number) is \(AttachmentLimits.megabytes(bytes)) after re-encoding down to \(last); images may be at most \(limit)")
        }
    }

    /// `photo.png` -> `photo.jpg`; a name without an extension gets `.jpg`.
    static func jpegName(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name + ".jpg" }
        return name[..<dot] + ".jpg"
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
