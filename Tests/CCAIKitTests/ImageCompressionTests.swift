@testable import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import VipsTestImages

/// Real images, made by libvips at test time: Gaussian noise, the worst case for a JPEG
/// encoder, so each attempt of the compressor's ladder is hard to pass. Making, measuring
/// and compressing them takes seconds of CPU, so it runs off the threads Swift's tasks
/// share: on them it would stall every other test's sandbox for as long.
enum TestImages {
    /// A `width` x `height` noise picture in `format` (png, jpeg, webp, heif).
    static func noise(_ format: String, width: Int, height: Int, quality: Int = 90, orientation: Int = 1,
                      transparent: Bool = false) async throws -> Data {
        try await offThePool {
            try encodedNoise(format, width: width, height: height, quality: quality, orientation: orientation,
                             transparent: transparent)
        }
    }

    /// The image compressed as the SDK does it (``ImageCompressor/compress(_:mimeType:limit:)``).
    static func compress(_ data: Data, mimeType: String, limit: Int) async throws -> ImageCompressor.Compressed {
        try await offThePool { try ImageCompressor.compress(data, mimeType: mimeType, limit: limit) }
    }

    private static func encodedNoise(_ format: String, width: Int, height: Int, quality: Int = 90, orientation: Int = 1,
                                     transparent: Bool = false) throws -> Data {
        var output: UnsafeMutableRawPointer?
        var length = 0
        try call { error in
            ccai_test_noise_image(Int32(width), Int32(height), 40, transparent ? 1 : 0, format, Int32(quality),
                                  Int32(orientation), &output, &length, &error)
        }
        defer { ccai_test_free(output) }
        guard let output else { throw Failure(description: "libvips returned no image") }
        return Data(bytes: output, count: length)
    }

    /// The mean of all samples (255: all white).
    static func mean(_ data: Data) async throws -> Double {
        try await offThePool {
            var mean = 0.0
            try call { error in data.withUnsafeBytes { ccai_test_mean($0.baseAddress, $0.count, &mean, &error) } }
            return mean
        }
    }

    /// Whether this libheif can encode HEIC (Debian's libheif1 does, with x265).
    static let canEncodeHEIC = (try? encodedNoise("heif", width: 16, height: 16)) != nil

    private struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static func call(_ body: (inout UnsafeMutablePointer<CChar>?) -> Int32) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = body(&error)
        defer { ccai_test_free(error) }
        guard status == 0 else { throw Failure(description: error.map { String(cString: $0) } ?? "libvips failed") }
    }
}

/// The SDK's image compression: the lossless strip, the re-encoding ladder with libvips,
/// its guards (decompression bombs, undecodable bytes, the floor) and the upload's name
/// and type. Seed 003, consumer attachments: "The SDK enforces strict file size limits and
/// automatically attempts compression before transmission" (images <= 2 MB, videos <= 20 MB).
@Suite struct ImageCompressionTests {
    /// One input format, its size and the limit it is compressed to.
    struct Case: Sendable, CustomStringConvertible {
        var format: String
        var mimeType: String
        var width: Int
        var height: Int
        var quality: Int
        var limit: Int
        var description: String { format }
    }

    /// PNG against the real 2 MB limit; the others, slower to encode at test time, smaller
    /// against smaller limits.
    static let cases = [
        Case(format: "png", mimeType: "image/png", width: 2000, height: 1500, quality: 0, limit: AttachmentLimits.imageBytes),
        Case(format: "jpeg", mimeType: "image/jpeg", width: 1800, height: 1200, quality: 95, limit: 400_000),
        Case(format: "webp", mimeType: "image/webp", width: 1500, height: 1000, quality: 100, limit: 300_000),
    ]

    /// The image compressed to `limit` is a JPEG under it, of the original's proportions.
    private func expectFittingJPEG(_ original: Data, width: Int, height: Int, mimeType: String, limit: Int) async throws {
        #expect(original.count > limit, "the test image is over its limit")
        let compressed = try await TestImages.compress(original, mimeType: mimeType, limit: limit)
        #expect(compressed.mimeType == "image/jpeg" && compressed.reencoding != nil)
        #expect(compressed.data.count <= limit && compressed.data.starts(with: [0xFF, 0xD8]))
        let header = try ImageCodec.header(compressed.data)
        let attempt = try #require(compressed.reencoding)
        #expect(max(header.width, header.height) == min(attempt.longEdge, max(width, height)))
        #expect(abs(header.width * height - header.height * width) <= max(width, height), "\(header) for \(width) x \(height)")
    }

    @Test(arguments: cases) func eachFormatOverTheLimitComesBackAsAJPEGThatFits(_ test: Case) async throws {
        let original = try await TestImages.noise(test.format, width: test.width, height: test.height, quality: test.quality)
        try await expectFittingJPEG(original, width: test.width, height: test.height, mimeType: test.mimeType, limit: test.limit)
    }

    @Test(.enabled(if: TestImages.canEncodeHEIC, "libheif has no HEVC encoder here"))
    func aHEICOverTheLimitComesBackAsAJPEGThatFits() async throws {
        let original = try await TestImages.noise("heif", width: 600, height: 400)
        try await expectFittingJPEG(original, width: 600, height: 400, mimeType: "image/heic", limit: 100_000)
    }

    @Test func anEXIFRotatedJPEGComesBackUpright() async throws {
        let original = try await TestImages.noise("jpeg", width: 1200, height: 800, orientation: 6)
        #expect(try ImageCodec.header(original) == ImageCodec.Header(width: 1200, height: 800, orientation: 6))
        let compressed = try await TestImages.compress(original, mimeType: "image/jpeg", limit: 150_000)
        let header = try ImageCodec.header(compressed.data)
        #expect(header.orientation == 1 && header.width < header.height, "\(header)")
        #expect(abs(header.width * 3 - header.height * 2) <= 3, "\(header)")
    }

    @Test func theLosslessStripKeepsTheOrientation() async throws {
        let picture = try await TestImages.noise("jpeg", width: 120, height: 80, orientation: 6)
        // An IPTC segment (APP13) of 64 KB after the start of image: metadata, no picture.
        let padded = picture.prefix(2) + Data([0xFF, 0xED, 0xFF, 0xFF] + [UInt8](repeating: 0x49, count: 65533)) + picture.dropFirst(2)
        let compressed = try await TestImages.compress(padded, mimeType: "image/jpeg", limit: picture.count + 100)
        #expect(compressed.reencoding == nil && compressed.mimeType == "image/jpeg")
        #expect(compressed.data.count < picture.count + 100)
        #expect(try ImageCodec.header(compressed.data) == ImageCodec.Header(width: 120, height: 80, orientation: 6))
        for orientation in 1...8 {
            #expect(ImageCompressor.exifOrientation(ImageCompressor.orientationSegment(orientation).dropFirst(4)) == orientation)
        }
    }

    @Test func transparencyGoesOnWhite() async throws {
        let original = try await TestImages.noise("png", width: 800, height: 600, transparent: true)
        let compressed = try await TestImages.compress(original, mimeType: "image/png", limit: original.count / 2)
        #expect(compressed.mimeType == "image/jpeg")
        #expect(try await TestImages.mean(compressed.data) > 250)
    }

    /// PNG's CRC-32 of each byte value: with it a 2 MB chunk's checksum takes one lookup a
    /// byte, not eight shifts, which in a debug build is the difference of seconds.
    private static let crcTable: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    /// A PNG whose header says `width` x `height` pixels, padded to `padding` bytes by a
    /// private ancillary chunk the lossless strip keeps; its IDAT is empty, so decoding it
    /// would fail.
    private func claimedPNG(width: UInt32, height: UInt32, padding: Int) -> Data {
        func crc(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes { crc = Self.crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return ~crc
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            bigEndian(UInt32(data.count)) + Array(type.utf8) + data + bigEndian(crc(Array(type.utf8) + data))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]   // 8-bit RGB
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
                    + chunk("prVt", [UInt8](repeating: 0, count: padding)) + chunk("IDAT", []) + chunk("IEND", []))
    }

    @Test func anImageOverOneHundredMegapixelsIsRefusedFromItsHeader() throws {
        let bomb = claimedPNG(width: 20000, height: 20000, padding: 0)
        #expect(throws: ImageCompressor.Failure.tooManyPixels(width: 20000, height: 20000)) {
            try ImageCompressor.compress(bomb, mimeType: "image/png", limit: 10)
        }
        let large = UploadableImage(data: claimedPNG(width: 20000, height: 20000, padding: AttachmentLimits.imageBytes),
                                    mimeType: "image/png", fileName: "bomb.png")
        do {
            _ = try Upload(image: large, number: 1)
            Issue.record("a 400-megapixel image is refused")
        } catch let error as CCAIError {
            #expect(error.code == .tooLarge && error.message.contains("20000 x 20000 pixels, more than the 100 megapixels"), "\(error)")
        }
        #expect(throws: ImageCompressor.Failure.tooManyPixels(width: 10000, height: 10001), "just over 100 megapixels") {
            try ImageCompressor.compress(claimedPNG(width: 10000, height: 10001, padding: 0), mimeType: "image/png", limit: 10)
        }
    }

    @Test func bytesThatAreNoImageOrAnotherFormatAreInvalidArguments() async throws {
        let garbage = UploadableImage(data: Data(repeating: 7, count: AttachmentLimits.imageBytes + 1), mimeType: "image/png")
        do {
            _ = try Upload(image: garbage, number: 2)
            Issue.record("garbage over the limit is an error")
        } catch let error as CCAIError {
            #expect(error.code == .invalidArgument && error.message.hasPrefix("image 2 could not be decoded as an image"), "\(error)")
            #expect(error.message.contains("not in a known format"), "libvips' reason: \(error)")
        }
        // A 1x1 GIF and an SVG: formats libvips reads, kept from the SDK.
        let gif = Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF,
                        0x21, 0xF9, 0x04, 0x01, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0, 0x3B])
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><rect width="4000" height="4000"/></svg>"#.utf8)
        for (data, mimeType) in [(gif, "image/gif"), (svg, "image/svg+xml")] {
            do {
                _ = try await TestImages.compress(data, mimeType: mimeType, limit: 10)
                Issue.record("\(mimeType) is not decoded")
            } catch ImageCompressor.Failure.undecodable(let reason) {
                #expect(reason.contains("operation is blocked"), "\(reason)")
            }
        }
    }

    @Test func anImageThatCannotFitEvenAtTheFloorIsTooLargeAndSaysWhatWasTried() async throws {
        let original = try await TestImages.noise("png", width: 1000, height: 800)
        do {
            _ = try await TestImages.compress(original, mimeType: "image/png", limit: 1000)
            Issue.record("noise does not fit 1000 bytes")
        } catch ImageCompressor.Failure.doesNotFit(let bytes, let last) {
            #expect(bytes > 1000 && last == ImageCompressor.Attempt(longEdge: 640, quality: 40))
        }
        let error = Upload.error(.doesNotFit(bytes: 3_250_000, last: ImageCompressor.Attempt(longEdge: 640, quality: 40)),
                                 image: 1, bytes: 9_000_000)
        #expect(error.code == .tooLarge)
        #expect(error.message == "image 1 is 3.1 MB after re-encoding down to 640 px at quality 40; images may be at most 2 MB")
    }

    @Test func theLadderGoesFromQualityToSizeToTheFloor() {
        let ladder = ImageCompressor.attempts(longEdge: 3000).map { "\($0)" }
        #expect(ladder == ["3000 px at quality 85", "3000 px at quality 75", "3000 px at quality 65", "3000 px at quality 55",
                           "2250 px at quality 55", "1687 px at quality 55", "1265 px at quality 55", "948 px at quality 55",
                           "711 px at quality 55", "640 px at quality 55", "640 px at quality 40"])
        #expect(ImageCompressor.attempts(longEdge: 500).map { "\($0)" }
                == ["500 px at quality 85", "500 px at quality 75", "500 px at quality 65", "500 px at quality 55",
                    "500 px at quality 40"], "a small picture is never enlarged")
    }

    @Test func aReencodedImageIsNamedAsAJPEG() {
        #expect(Upload.jpegName("photo.png") == "photo.jpg" && Upload.jpegName("scan") == "scan.jpg")
        #expect(Upload.jpegName("IMG_0001.HEIC") == "IMG_0001.jpg" && Upload.jpegName(".png") == ".png.jpg")
        #expect(Upload.jpegName("archive.tar.webp") == "archive.tar.jpg")
    }

    @Test(.timeLimit(.minutes(1))) func aPNGOverTwoMegabytesReachesTheSandboxAsAJPEG() async throws {
        let png = try await TestImages.noise("png", width: 2000, height: 1500)
        #expect(png.count > AttachmentLimits.imageBytes)
        let sandbox = try await openSandbox()
        let delegate = SigningDelegate(identifier: "photographer")   // the SDK holds its delegate weakly
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 1))
        let sent = try await service.sendMessage(.images(images: [UploadableImage(data: png, mimeType: "image/png", fileName: "photo.png")],
                                                          smartAction: nil))
        let media = try #require(sent.first?.media)
        #expect(media.name == "photo.jpg" && media.mimeType == "image/jpeg" && media.size <= AttachmentLimits.imageBytes, "\(media)")
        let file = try await service.downloadMedia(media.id, mediaType: .photo)
        #expect(file.fileName == "photo.jpg" && file.data.starts(with: [0xFF, 0xD8]) && file.data.count == media.size)
        try await service.endChat()
        #expect(delegate.calls >= 1)
    }
}
