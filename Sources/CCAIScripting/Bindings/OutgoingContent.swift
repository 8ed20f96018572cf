import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// A message a script (`ccai.chat.send_message`) or a plugin's smart action answer wants
/// sent: text, or images or videos from files (`path`, relative to the script's or
/// plugin's folder) or from bytes (`data`).
///
/// ```lua
/// ccai.chat.send_message{ images = { { path = "receipt.jpg", mime_type = "image/jpeg" } } }
/// ```
struct OutgoingContent: Sendable {
    /// A field of the Lua value that is wrong, and what was expected.
    struct FieldError: Error {
        var field: String
        var message: String
    }

    var content: OutgoingMessageContent
    /// Videos given as bytes, written to temporary files for the SDK; removed after sending.
    var temporaryFiles: [URL] = []

    init(content: OutgoingMessageContent) {
        self.content = content
    }

    /// Reads `{ text = ... }`, `{ images = {...}, smart_action = action }` or
    /// `{ videos = {...}, smart_action = action }`; `field` names the value in errors.
    init(_ table: LuaTable, field: String, resolve: (String) -> String) throws {
        let smartAction = try Self.smartAction(table["smart_action"] ?? .nil, field: field + ".smart_action")
        let present = ["text", "images", "videos", "form_complete", "screen_share"].filter { !(table[$0] ?? .nil).isNil }
        guard present.count == 1, let kind = present.first else {
            throw FieldError(field: field, message: "one of text, images, videos, form_complete or screen_share expected"
                             + (present.isEmpty ? "" : ", got " + present.joined(separator: " and ")))
        }
        switch kind {
        case "text":
            guard let text = table["text"]?.stringValue, !text.isEmpty else {
                throw FieldError(field: field + ".text", message: "a non-empty string expected")
            }
            content = .text(content: text)
        case "form_complete":
            do {
                content = .formComplete(payload: try LuaDecoder().decode(FormCompletePayload.self, from: table["form_complete"] ?? .nil))
            } catch let error as DecodingError {
                throw FieldError(field: field + ".form_complete", message: "a form-complete payload expected: \(SDKBindings.describe(error))")
            }
        case "screen_share":
            do {
                let message = try LuaDecoder().decode(ScreenShareEventMessage.self, from: table["screen_share"] ?? .nil)
                content = .screenShare(event: message.event, response: message.response)
            } catch let error as DecodingError {
                throw FieldError(field: field + ".screen_share", message: "{ event = \"screen_share_...\", response = session } expected: \(SDKBindings.describe(error))")
            }
        case "images":
            let files = try Self.files(table["images"] ?? .nil, field: field + ".images")
            content = .images(images: try files.enumerated().map { index, file in
                let data = try file.data(field: "\(field).images[\(index + 1)]", resolve: resolve)
                return UploadableImage(data: data, mimeType: file.mimeType, fileName: file.name ?? file.path.map { URL(fileURLWithPath: $0).lastPathComponent })
            }, smartAction: smartAction)
        default:
            var videos: [UploadableVideo] = []
            var temporary: [URL] = []
            for (index, file) in try Self.files(table["videos"] ?? .nil, field: field + ".videos").enumerated() {
                if let path = file.path {
                    videos.append(UploadableVideo(url: URL(fileURLWithPath: resolve(path)), mimeType: file.mimeType))
                } else {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ccai-" + UUID().uuidString)
                    let url = folder.appendingPathComponent(file.name ?? "video-\(index + 1)")
                    do {
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                        try file.data(field: "\(field).videos[\(index + 1)]", resolve: resolve).write(to: url)
                    } catch let error as FieldError {
                        throw error
                    } catch {
                        throw FieldError(field: "\(field).videos[\(index + 1)].data", message: "cannot stage the video: \(error.localizedDescription)")
                    }
                    temporary.append(folder)
                    videos.append(UploadableVideo(url: url, mimeType: file.mimeType))
                }
            }
            content = .videos(videos: videos, smartAction: smartAction)
            temporaryFiles = temporary
        }
    }

    /// Sends through the SDK, then removes the temporary files.
    func send(with service: ChatService) async throws -> [ChatMessage] {
        defer { for file in temporaryFiles { try? FileManager.default.removeItem(at: file) } }
        return try await service.sendMessage(content)
    }

    /// One entry of `images` or `videos`.
    private struct File {
        var path: String?
        var bytes: Data?
        var mimeType: String
        var name: String?

        func data(field: String, resolve: (String) -> String) throws -> Data {
            if let bytes { return bytes }
            let resolved = resolve(path ?? "")
            do {
                return try Data(contentsOf: URL(fileURLWithPath: resolved))
            } catch {
                throw FieldError(field: field + ".path", message: "cannot read '\(resolved)'")
            }
        }
    }

    private static func files(_ value: LuaValue, field: String) throws -> [File] {
        guard let list = value.tableValue, !list.sequence.isEmpty, list.fields.isEmpty else {
            throw FieldError(field: field, message: "a non-empty list of { path = ..., mime_type = ... } expected")
        }
        return try list.sequence.enumerated().map { index, entry in
            let at = "\(field)[\(index + 1)]"
            guard let table = entry.tableValue else { throw FieldError(field: at, message: "a table { path = ..., mime_type = ... } expected") }
            guard let mimeType = table["mime_type"]?.stringValue, !mimeType.isEmpty else {
                throw FieldError(field: at + ".mime_type", message: "a MIME type string expected")
            }
            let path = table["path"]?.stringValue
            let bytes = table["data"]?.dataValue
            guard (path == nil) != (bytes == nil) else {
                throw FieldError(field: at, message: "either path (a file) or data (its bytes) expected")
            }
            return File(path: path, bytes: bytes, mimeType: mimeType, name: table["name"]?.stringValue)
        }
    }

    private static func smartAction(_ value: LuaValue, field: String) throws -> SmartAction? {
        guard !value.isNil else { return nil }
        do {
            return try LuaDecoder().decode(SmartAction.self, from: value)
        } catch let error as DecodingError {
            throw FieldError(field: field, message: "a smart action (as ccai.smart_action's requested event gives it) expected: \(SDKBindings.describe(error))")
        }
    }
}

/// Reads `ccai.chat.send_message`'s argument: a string, or a table for ``OutgoingContent``.
struct OutgoingContentReader {
    let call: LuaCall
    let context: SDKContext

    func read() throws -> OutgoingContent {
        if let text = (try? call.optionalString(1, "message")) ?? nil {
            guard !text.isEmpty else { throw call.argumentError(1, "message", "a non-empty text expected") }
            return OutgoingContent(content: .text(content: text))
        }
        guard !call.isNil(1) else { throw call.argumentError(1, "message", "a text (or { text = ... }, { images = ... }, { videos = ... }) expected") }
        let table = try call.table(1, "message")
        do {
            return try OutgoingContent(table, field: "message", resolve: context.resolve)
        } catch let error as OutgoingContent.FieldError {
            throw call.argumentError(1, error.field, error.message)
        }
    }
}
