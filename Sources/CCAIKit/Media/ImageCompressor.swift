import CCAIWire
import Foundation

/// The SDK's compression of an image over the limit (seeds: it compresses before it gives
/// up). First losslessly: it drops what does not change the picture (JPEG EXIF/XMP/IPTC and
/// comment segments, PNG text/EXIF/time chunks), keeping the EXIF orientation so the
/// picture still shows upright. If that is not enough it re-encodes the picture with
/// libvips (JPEG, PNG, WebP or HEIC/HEIF in, JPEG out, turned upright by its EXIF
/// orientation, in sRGB, transparency on white, no metadata): quality 85, 75, 65 and 55 at
/// full size, then the long edge shrunk by a quarter at a time down to 640 pixels at
/// quality 55, last quality 40 at 640 pixels; the first that fits is the answer. An image
/// over 100 megapixels is refused from its header, before it is decoded.
///
/// ```swift
/// let compressed = try ImageCompressor.compress(photo, mimeType: "image/png")
/// // compressed.mimeType == "image/jpeg" if it was re-encoded, compressed.data fits 2 MB
/// ```
public enum ImageCompressor {
    /// The most pixels (width x height) decoded to re-encode an image: 100 megapixels.
    public static let maximumPixels = 100_000_000
    /// The smallest long edge the re-encoding shrinks to, in pixels.
    public static let smallestLongEdge = 640

    /// One re-encoding: the longer side in pixels and the JPEG quality.
    public struct Attempt: Sendable, Equatable, CustomStringConvertible {
        /// The longer side of the picture, in pixels.
        public let longEdge: Int
        /// The JPEG quality, 1...100.
        public let quality: Int

        /// An attempt at `longEdge` pixels and `quality`.
        public init(longEdge: Int, quality: Int) {
            self.longEdge = longEdge
            self.quality = quality
        }

        /// `640 px at quality 40`.
        public var description: String { "\(longEdge) px at quality \(quality)" }
    }

    /// An image that fits the limit.
    public struct Compressed: Sendable, Equatable {
        /// The bytes to send, at most the limit.
        public let data: Data
        /// The original MIME type, or `image/jpeg` when it was re-encoded.
        public let mimeType: String
        /// The re-encoding that fit, or nil when the bytes are the original's or its
        /// lossless strip.
        public let reencoding: Attempt?
    }

    /// Why an image over the limit could not be made to fit.
    public enum Failure: Error, Sendable, Equatable {
        /// libvips could not read it (or it is not JPEG, PNG, WebP or HEIC/HEIF); what it said.
        case undecodable(reason: String)
        /// Its header says more than ``maximumPixels``: it is not decoded.
        case tooManyPixels(width: Int, height: Int)
        /// The last attempt, the floor, is still over the limit: its size in bytes.
        case doesNotFit(bytes: Int, last: Attempt)
    }

    /// `data` if it fits `limit` bytes, else its lossless strip if that fits, else the first
    /// re-encoding (``attempts(longEdge:)``) that fits; throws ``Failure`` if none does.
    public static func compress(_ data: Data, mimeType: String, limit: Int = AttachmentLimits.imageBytes) throws -> Compressed {
        guard data.count > limit else { return Compressed(data: data, mimeType: mimeType, reencoding: nil) }
        if let stripped = stripped(data, mimeType: mimeType), stripped.count <= limit {
            return Compressed(data: stripped, mimeType: mimeType, reencoding: nil)
        }
        let header: ImageCodec.Header
        do {
            header = try ImageCodec.header(data)
        } catch let failure as ImageCodec.Failure {
            throw Failure.undecodable(reason: failure.reason)
        }
        guard header.width * header.height <= maximumPixels else {
            throw Failure.tooManyPixels(width: header.width, height: header.height)
        }
        var last: (bytes: Int, attempt: Attempt)?
        for attempt in attempts(longEdge: max(header.width, header.height)) {
            let jpeg: Data
            do {
                jpeg = try ImageCodec.jpeg(data, longEdge: attempt.longEdge, quality: attempt.quality)
            } catch let failure as ImageCodec.Failure {
                throw Failure.undecodable(reason: failure.reason)
            }
            if jpeg.count <= limit { return Compressed(data: jpeg, mimeType: "image/jpeg", reencoding: attempt) }
            last = (jpeg.count, attempt)
        }
        guard let last else { throw Failure.undecodable(reason: "the image has no pixels") }
        throw Failure.doesNotFit(bytes: last.bytes, last: last.attempt)
    }

    /// The re-encodings tried for a picture whose longer side is `longEdge` pixels, in
    /// order: quality 85, 75, 65, 55 at full size; quality 55 with the long edge shrunk by
    /// a quarter at a time, then at ``smallestLongEdge``; last quality 40 at that size.
    /// A picture no longer than ``smallestLongEdge`` is never enlarged.
    public static func attempts(longEdge: Int) -> [Attempt] {
        guard longEdge > 0 else { return [] }
        var attempts = [85, 75, 65, 55].map { Attempt(longEdge: longEdge, quality: $0) }
        var edge = longEdge
        while edge * 3 / 4 > smallestLongEdge {
            edge = edge * 3 / 4
            attempts.append(Attempt(longEdge: edge, quality: 55))
        }
        let floor = min(longEdge, smallestLongEdge)
        if floor < longEdge { attempts.append(Attempt(longEdge: floor, quality: 55)) }
        attempts.append(Attempt(longEdge: floor, quality: 40))
        return attempts
    }

    /// The lossless strip of a JPEG or PNG, or nil (another format, or not parsed).
    static func stripped(_ data: Data, mimeType: String) -> Data? {
        switch mimeType.lowercased() {
        case "image/jpeg", "image/jpg": strippedJPEG(data)
        case "image/png": strippedPNG(data)
        default: nil
        }
    }

    /// JPEG without APP1...APP13 and APP15 (EXIF, XMP, IPTC...) and COM segments; APP0
    /// (JFIF), APP2 (the ICC profile) and APP14 (Adobe colour) stay. An EXIF orientation
    /// other than upright stays too, in an EXIF segment of its own (36 bytes).
    static func strippedJPEG(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xDA {
                output += bytes[index...]   // start of scan: the compressed picture follows
                return Data(output)
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let segment = bytes[index..<(index + 2 + length)]
            let droppable = (0xE1...0xED).contains(marker) || marker == 0xEF || marker == 0xFE
            if !droppable {
                output += segment
            } else if marker == 0xE1, let orientation = exifOrientation(segment.dropFirst(4)), orientation != 1 {
                output += orientationSegment(orientation)
            }
            index += 2 + length
        }
        return nil
    }

    /// PNG without tEXt, zTXt, iTXt and tIME chunks, and without eXIf unless it turns the
    /// picture (an orientation other than upright).
    static func strippedPNG(_ data: Data) -> Data? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let bytes = [UInt8](data)
        guard bytes.count > 8, Array(bytes[0..<8]) == signature else { return nil }
        var output = signature
        var index = 8
        let droppable: Set<String> = ["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let end = index + 12 + length
            guard end <= bytes.count else { return nil }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let turns = type == "eXIf" && (tiffOrientation(bytes[(index + 8)..<(end - 4)]) ?? 1) != 1
            if !droppable.contains(type) || turns { output += bytes[index..<end] }
            index = end
            if type == "IEND" { return Data(output) }
        }
        return nil
    }

    /// The orientation in a JPEG APP1 segment's body, if it is EXIF (`Exif\0\0` and a TIFF
    /// structure) and has one.
    static func exifOrientation(_ body: ArraySlice<UInt8>) -> Int? {
        let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        guard body.starts(with: exif) else { return nil }
        return tiffOrientation(body.dropFirst(exif.count))
    }

    /// The Orientation tag (0x0112) of a TIFF structure's first IFD, 1...8, or nil.
    static func tiffOrientation(_ tiff: ArraySlice<UInt8>) -> Int? {
        let bytes = Array(tiff)
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func number(at offset: Int, size: Int) -> Int? {
            guard offset >= 0, offset + size <= bytes.count else { return nil }
            let field = bytes[offset..<(offset + size)]
            return (bigEndian ? Array(field) : field.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard number(at: 2, size: 2) == 42, let directory = number(at: 4, size: 4), let count = number(at: directory, size: 2) else {
            return nil
        }
        for entry in 0..<count {
            let offset = directory + 2 + 12 * entry
            guard let tag = number(at: offset, size: 2) else { return nil }
            // SHORT (3), one value, held in the entry itself.
            if tag == 0x0112, number(at: offset + 2, size: 2) == 3, let value = number(at: offset + 8, size: 2) {
                return (1...8).contains(value) ? value : nil
            }
        }
        return nil
    }

    /// An APP1 segment with an EXIF structure holding only `orientation` (big-endian TIFF,
    /// one IFD with one entry).
    static func orientationSegment(_ orientation: Int) -> [UInt8] {
        [0xFF, 0xE1, 0x00, 0x22]                                    // APP1, 34 bytes
            + [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]                   // Exif\0\0
            + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]       // MM, 42, IFD at 8
            + [0x00, 0x01]                                           // one entry:
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]       // Orientation, SHORT, 1
            + [0x00, UInt8(orientation), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]                               // no next IFD
    }
}
