import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// A message a script (`ccai.chat.send_message`) or a plugin's smart action answer wants
/// sent: text, or images or videos from files (`path`, relative to the script's or
/// plugin's folder and confined to it) or from bytes (`data`, with an optional `name`:
/// a file name, never a path).
///
/// ```lua
/// ccai.chat.send_message{ images = { { path = "receipt.jpg", mime_type = "image/jpeg" } } }
/// ```
struct OutgoingContent: Sendable {
    /// A field of the Lua value that is wrong, and what was expected.
    struct FieldError: Error {
        var field: String
        var message: String
        /// `invalid_argument`, or `too_large` for a file over the limit.
        var code: ErrorCode = .invalidArgument
    }

    /// The largest image file read from disk: 20 MB, ten times the upload limit, so that a
    /// camera's photo (a 48-megapixel JPEG or HEIC is 10 to 20 MB) reaches the SDK, which
    /// re-encodes it to fit; a larger file is refused before a byte is read.
    static let maximumImageFileBytes = 10 * AttachmentLimits.imageBytes

    var content: OutgoingMessageContent
    /// The private folders videos were staged in for the SDK; removed after sending.
    var temporaryFiles: [URL] = []

    init(content: OutgoingMessageContent) {
        self.content = content
    }

    /// Reads `{ text = ... }`, `{ images = {...}, smart_action = action }` or
    /// `{ videos = {...}, smart_action = action }`; `field` names the value in errors, `folder`
    /// is where paths are read from.
    init(_ table: LuaTable, field: String, folder: ConfinedFolder) throws {
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
                let data = try file.data(field: "\(field).images[\(index + 1)]", folder: folder)
                return UploadableImage(data: data, mimeType: file.mimeType, fileName: file.fileName)
            }, smartAction: smartAction)
        default:
            var videos: [UploadableVideo] = []
            var temporary: [URL] = []
            var staged = false
            defer { if !staged { for staging in temporary { try? FileManager.default.removeItem(at: staging) } } }
            for (index, file) in try Self.files(table["videos"] ?? .nil, field: field + ".videos").enumerated() {
                let at = "\(field).videos[\(index + 1)]"
                let staging = try Self.stagingFolder(field: at)
                temporary.append(staging)
                let url = staging.appendingPathComponent(file.fileName ?? "video-\(index + 1)")
                if let path = file.path {
                    do {
                        try folder.copy(path, to: url.path, maximumBytes: AttachmentLimits.videoBytes)
                    } catch let refusal as ConfinedFolder.Refusal {
                        throw FieldError(refusal, field: at + ".path")
                    }
                } else {
                    let data = try file.data(field: at, folder: folder)
                    guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                        throw FieldError(field: at + ".data", message: "cannot stage the video")
                    }
                }
                videos.append(UploadableVideo(url: url, mimeType: file.mimeType))
            }
            content = .videos(videos: videos, smartAction: smartAction)
            temporaryFiles = temporary
            staged = true
        }
    }

    /// Sends through the SDK, then removes the temporary files.
    func send(with service: ChatService) async throws -> [ChatMessage] {
        defer { for file in temporaryFiles { try? FileManager.default.removeItem(at: file) } }
        return try await service.sendMessage(content)
    }

    /// A private folder (mode 0700) for one staged video.
    private static func stagingFolder(field: String) throws -> URL {
        var template = Array((FileManager.default.temporaryDirectory.path + "/ccai-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw FieldError(field: field, message: "cannot stage the video: no temporary folder")
        }
        return URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    /// One entry of `images` or `videos`.
    private struct File {
        var path: String?
        var bytes: Data?
        var mimeType: String
        var name: String?

        /// The name the agent sees: `name`, else the last component of `path`.
        var fileName: String? { name ?? path.map { URL(fileURLWithPath: $0).lastPathComponent } }

        func data(field: String, folder: ConfinedFolder) throws -> Data {
            if let bytes { return bytes }
            do {
                return try folder.read(path ?? "", maximumBytes: OutgoingContent.maximumImageFileBytes)
            } catch let refusal as ConfinedFolder.Refusal {
                throw FieldError(refusal, field: field + ".path")
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
            if let path {
                do {
                    try ConfinedFolder.checkRelative(path)
                } catch let refusal as ConfinedFolder.Refusal {
                    throw FieldError(refusal, field: at + ".path")
                }
            }
            let name = table["name"]
            if let name, !name.isNil {
                guard let text = name.stringValue else { throw FieldError(field: at + ".name", message: "a file name (string) expected") }
                if let problem = FileName.problem(text) { throw FieldError(field: at + ".name", message: problem) }
            }
            return File(path: path, bytes: bytes, mimeType: mimeType, name: name?.stringValue)
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
            return try OutgoingContent(table, field: "message", folder: try context.files())
        } catch let error as OutgoingContent.FieldError {
            throw error.luaError(call)
        }
    }
}

extension OutgoingContent.FieldError {
    init(_ refusal: ConfinedFolder.Refusal, field: String) {
        self.init(field: field, message: refusal.message, code: refusal.kind == .tooLarge ? .tooLarge : .invalidArgument)
    }

    /// The error a binding raises: an argument error naming the field, or `too_large`.
    func luaError(_ call: LuaCall, argument: Int = 1) -> LuaErrorValue {
        var error = call.argumentError(argument, field, message)
        error.code = code.rawValue
        return error
    }
}
