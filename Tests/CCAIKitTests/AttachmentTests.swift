@testable import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// Images and videos from the SDK: the compression attempt, the limits, the upload, the
/// download with its file name; pre-session smart actions and `enqueueCurrentChat`.
@Suite struct AttachmentTests {
    /// A JPEG whose EXIF segments make up `metadata` bytes.
    private func jpeg(picture: Int, exifSegments: Int) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]   // SOI, a short APP0
        for _ in 0..<exifSegments { bytes += [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0x45, count: 65533) }
        bytes += [0xFF, 0xFE, 0x00, 0x05, 0x68, 0x69, 0x21]                      // a comment
        bytes += [0xFF, 0xDA, 0x00, 0x02] + [UInt8](repeating: 0x50, count: picture) + [0xFF, 0xD9]
        return Data(bytes)
    }

    @Test func compressionDropsMetadataButNotThePicture() throws {
        let original = jpeg(picture: 1000, exifSegments: 2)
        let compressed = try #require(ImageCompressor.stripped(original, mimeType: "image/jpeg"))
        #expect(compressed.count == original.count - 2 * 65537 - 7)
        #expect(compressed.prefix(8) == original.prefix(8), "APP0 stays")
        #expect(compressed.suffix(1004) == original.suffix(1004), "the scan is untouched")

        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", [UInt8](repeating: 1, count: 13))
            + chunk("tEXt", [UInt8](repeating: 2, count: 100)) + chunk("IDAT", [3, 3, 3]) + chunk("IEND", [])
        let strippedPNG = try #require(ImageCompressor.stripped(Data(png), mimeType: "image/png"))
        #expect(strippedPNG.count == png.count - 112)
        #expect(ImageCompressor.stripped(Data("not a jpeg".utf8), mimeType: "image/jpeg") == nil)
        #expect(ImageCompressor.stripped(Data(png), mimeType: "image/gif") == nil, "no lossless strip of other formats")
        let small = try ImageCompressor.compress(original, mimeType: "image/jpeg")
        #expect(small == ImageCompressor.Compressed(data: original, mimeType: "image/jpeg", reencoding: nil), "under the limit: unchanged")
    }

    @Test func aVideoOverTwentyMegabytesIsRefusedWithTheLimitAndNotTranscoded() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString).mp4")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(AttachmentLimits.videoBytes + 1))   // sparse: no 20 MB written
        do {
            _ = try Upload(video: UploadableVideo(url: url, mimeType: "video/mp4"), number: 1)
            Issue.record("a video over 20 MB is refused")
        } catch let error as CCAIError {
            #expect(error.code == .tooLarge && error.message.hasPrefix("video 1 is 20.0 MB") && error.message.hasSuffix("videos may be at most 20 MB"), "\(error)")
        }
        try handle.truncate(atOffset: UInt64(AttachmentLimits.videoBytes))
        let upload = try Upload(video: UploadableVideo(url: url, mimeType: "video/mp4"), number: 1)
        #expect(upload.mimeType == "video/mp4" && upload.fileName == url.lastPathComponent, "20 MB goes as it is")
    }

    @Test(.timeLimit(.minutes(1))) func imagesAndVideosGoUpAndComeBackWithTheirNames() async throws {
        let sandbox = try await openSandbox()
        let delegate = SigningDelegate(identifier: "uploader")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 1))

        let large = jpeg(picture: 1_500_000, exifSegments: 12)
        #expect(large.count > AttachmentLimits.imageBytes)
        let sent = try await service.sendMessage(.images(images: [UploadableImage(data: large, mimeType: "image/jpeg", fileName: "big.jpg"),
                                                                   UploadableImage(data: Data("GIF89a".utf8), mimeType: "image/gif")],
                                                          smartAction: nil))
        #expect(sent.count == 2 && sent[0].media?.name == "big.jpg" && sent[0].media?.size ?? 0 <= AttachmentLimits.imageBytes)
        let file = try await service.downloadMedia(try #require(sent[0].media).id, mediaType: .photo)
        #expect(file.fileName == "big.jpg" && file.data == ImageCompressor.stripped(large, mimeType: "image/jpeg"))
        #expect(try await service.downloadMedia(try #require(sent[1].media).id, mediaType: .photo).fileName == nil)

        let undecodable = Data(repeating: 7, count: AttachmentLimits.imageBytes + 1)
        await #expect(throws: CCAIError.self) {
            try await service.sendMessage(.images(images: [UploadableImage(data: undecodable, mimeType: "image/gif")], smartAction: nil))
        }
        let videoURL = FileManager.default.temporaryDirectory.appendingPathComponent("clip-\(UUID().uuidString).mp4")
        try Data(repeating: 1, count: 4096).write(to: videoURL)
        defer { try? FileManager.default.removeItem(at: videoURL) }
        let video = try await service.sendMessage(.videos(videos: [UploadableVideo(url: videoURL, mimeType: "video/mp4")], smartAction: nil))
        #expect(video.first?.media?.type == .video && video.first?.media?.name == videoURL.lastPathComponent)
        do {
            try await service.sendMessage(.videos(videos: [UploadableVideo(url: URL(fileURLWithPath: "/nonexistent.mp4"),
                                                                           mimeType: "video/mp4")], smartAction: nil))
            Issue.record("a missing video file is an error")
        } catch let error as CCAIError {
            #expect(error.code == .invalidArgument && error.message.contains("/nonexistent.mp4"))
        }
        do {
            try await service.sendMessage(.images(images: [UploadableImage(data: undecodable, mimeType: "image/gif")], smartAction: nil))
            Issue.record("bytes over the limit that are no image are an error")
        } catch let error as CCAIError {
            #expect(error.code == .invalidArgument && error.message.contains("image 1 could not be decoded as an image"), "\(error)")
        }
        try await service.endChat()
        #expect(delegate.calls >= 1)
    }

    @Test(.timeLimit(.minutes(1))) func preSessionActionsAreAnsweredBeforeTheChatIsEnqueued() async throws {
        let sandbox = try await openSandbox()
        let delegate = SigningDelegate(identifier: "pre-session")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        let (chatService, smartActions) = (try #require(ccai.chatService), try #require(ccai.smartActionService))
        let chat = try await chatService.start(request: ChatRequest(menuId: 2))
        #expect(chat.status == .pending)
        let actions = try await smartActions.getSmartActions(router: CommunicationRouter(id: chat.id, type: .chat))
        let text = try #require(actions.first)
        #expect(text.type == .text && text.preSession)
        try await smartActions.notifySmartActionReceived(router: text.router, smartActionId: text.id)
        try await smartActions.sendSmartActionResult(router: text.router, smartActionId: text.id,
                                                     result: SmartActionResult(text: "serial 42"))
        try await smartActions.updateSmartActionStatus(router: text.router, smartActionId: text.id, status: .finished)
        try await chatService.enqueueCurrentChat()
        #expect(chatService.currentChat?.status != .pending)
        await #expect(throws: CCAIError.self) {
            try await smartActions.updateSmartActionStatus(router: text.router, smartActionId: text.id, status: .failed)
        }
        try await chatService.endChat()
        #expect(delegate.calls >= 1)
    }
}
