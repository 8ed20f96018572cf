import CVipsShim
import Foundation

/// libvips, through CVipsShim: an image's header, and the image re-encoded as JPEG. It
/// decodes JPEG, PNG, WebP and HEIC/HEIF (AVIF too: the same loader) only; every other libvips loader is blocked.
enum ImageCodec {
    /// An image's dimensions as stored, before its EXIF orientation turns it.
    struct Header: Equatable, Sendable {
        var width: Int
        var height: Int
        /// The EXIF orientation, 1 (upright, or none) to 8.
        var orientation: Int
    }

    /// What libvips said when it failed.
    struct Failure: Error, Equatable {
        var reason: String
    }

    /// Reads the header only: no pixel is decoded.
    static func header(_ data: Data) throws -> Header {
        var width: Int32 = 0, height: Int32 = 0, orientation: Int32 = 1
        try call { error in
            data.withUnsafeBytes { ccai_vips_header($0.baseAddress, $0.count, &width, &height, &orientation, &error) }
        }
        return Header(width: Int(width), height: Int(height), orientation: Int(orientation))
    }

    /// The picture upright, shrunk to fit `longEdge` pixels on its longer side (never
    /// enlarged), in sRGB on white, as a JPEG of `quality` without metadata.
    static func jpeg(_ data: Data, longEdge: Int, quality: Int) throws -> Data {
        var output: UnsafeMutableRawPointer?
        var length = 0
        try call { error in
            data.withUnsafeBytes {
                ccai_vips_jpeg($0.baseAddress, $0.count, Int32(longEdge), Int32(quality), &output, &length, &error)
            }
        }
        defer { ccai_vips_free(output) }
        guard let output else { throw Failure(reason: "libvips returned no JPEG") }
        return Data(bytes: output, count: length)
    }

    /// Runs a shim call; on failure throws its error text, on one line.
    private static func call(_ body: (inout UnsafeMutablePointer<CChar>?) -> Int32) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = body(&error)
        defer { ccai_vips_free(error) }
        guard status == 0 else {
            let lines = error.map { String(cString: $0) }?.split(whereSeparator: \.isNewline) ?? []
            throw Failure(reason: lines.isEmpty ? "libvips failed without saying why" : lines.joined(separator: "; "))
        }
    }
}
