import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The message methods of `ccai.chat`: `send_message` (text, images, videos, a
/// form-complete event), `typing`, `send_message_preview`, `send_event`, `get_messages`,
/// `get_previous_chats`, `download_media`.
///
/// ```lua
/// ccai.chat.send_message("My order is late")
/// ccai.chat.send_message{ images = { { path = "receipt.jpg", mime_type = "image/jpeg" } } }
/// ```
enum MessageBindings {
    static let rows: [Binding<SDKContext>] = [
        Binding("send_message", "Sends a message in the current chat: text, images or videos (one message each, returned in "
                + "order; optionally answering a smart action), or a web form's form-complete event.", sendMessage,
                returns: [.variadic(ChatMessage.self)]),
        Binding("typing", "Tells the agent whether the end user is typing.", typing),
        Binding("send_message_preview", "Shows the agent what the end user is typing; false when a newer preview was already "
                + "sent.", sendMessagePreview, returns: [.model(Bool.self)]),
        Binding("send_event", "Reports an interaction of the end user for the platform to track.", sendEvent),
        Binding("get_messages", "The current chat's messages, in order.", getMessages, returns: [.model([ChatMessage].self)]),
        Binding("get_previous_chats", "A page (from 1) of ended chats with their messages.", getPreviousChats,
                returns: [.model(PreviousChatsResponse.self)]),
        Binding("download_media", "Downloads a file of a chat message (message.media): its bytes and file name.", downloadMedia,
                returns: [.model(DownloadedMedia.self)]),
    ]

    static func sendMessage(_ context: SDKContext, _ argument: OutgoingMessageArgument, _ call: LuaCall) throws -> LuaReturn {
        let content: OutgoingContent
        if let text = argument.value.stringValue {
            guard !text.isEmpty else { throw call.argumentError(1, "message", "a non-empty text expected") }
            content = OutgoingContent(content: .text(content: text))
        } else if let table = argument.value.tableValue {
            do {
                content = try OutgoingContent(table, field: "message", folder: try context.files())
            } catch let error as OutgoingContent.FieldError {
                throw error.luaError(call)
            }
        } else {
            throw call.argumentError(1, "message", "a text (or { text = ... }, { images = ... }, { videos = ... }) expected")
        }
        let service = try ChatBindings.requireChat(context.sdk, call)
        let push: ([ChatMessage], inout LuaOutput) throws -> Void = { messages, output in
            for message in messages { output.push(try LuaEncoder().encode(message)) }
        }
        // A text, the message sent most, with no task waiting for it.
        if case .text(let text) = content.content {
            return try SDKBindings.sdk(call, starting: { service.sendMessage(text: text, completion: $0) }, push: push)
        }
        return try SDKBindings.sdk(call, { try await content.send(with: service) }, push: push)
    }

    static func typing(_ context: SDKContext, _ argument: TypingArgument, _ call: LuaCall) throws -> LuaReturn {
        try ChatBindings.requireChat(context.sdk, call).typing(argument.value)
        return .none
    }

    static func sendMessagePreview(_ context: SDKContext, _ argument: PreviewArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call, { try await service.sendMessagePreview(argument.value) },
                                   push: { kept, output in output.push(.boolean(kept)) })
    }

    static func sendEvent(_ context: SDKContext, _ event: ChatEventArgument, _ call: LuaCall) throws -> LuaReturn {
        var payload: [String: JSONValue]?
        if let given = event.payload {
            guard let table = given.tableValue, table.sequence.isEmpty, table.fields.keys.allSatisfy({ $0.stringValue != nil }),
                let object = ChatBindings.json(given)?.objectValue
            else { throw call.argumentError(1, "event.payload", "a table with string keys expected") }
            payload = object
        }
        let service = try ChatBindings.requireChat(context.sdk, call)
        let chatEvent = ChatEvent(name: event.name, payload: payload)
        return try SDKBindings.sdk(call, { try await service.sendEvent(chatEvent) }, push: { _, _ in })
    }

    static func getMessages(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) { try await service.getMessages() }
    }

    static func getPreviousChats(_ context: SDKContext, _ options: PreviousChatsPage, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) { try await service.getPreviousChats(currentPage: options.currentPage ?? 1) }
    }

    static func downloadMedia(_ context: SDKContext, _ request: MediaDownload, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) {
            let file = try await service.downloadMedia(request.mediaId, mediaType: request.mediaType ?? .document)
            return DownloadedMedia(data: file.data, fileName: file.fileName)
        }
    }
}

/// `send_message("text")` or `send_message{ text | images | videos | form_complete |
/// screen_share, smart_action }`, read by ``OutgoingContent`` (which reads files).
struct OutgoingMessageArgument: ValueArgument {
    static let name = "message"
    /// Required, though a Lua value may be nil: nil is refused, with what was expected.
    static let layout = ArgumentLayout.value(name, optional: false)
    var value: LuaValue

    static func shape(in schema: LuaSchema) throws -> LuaShape {
        .union([.string, try schema.shape(of: OutgoingMessageFields.self)])
    }
}

/// The fields of a message table, as the stubs show them.
struct OutgoingMessageFields: Decodable {
    /// An image or a video: from a file under the script's folder (`path`) or from bytes.
    struct File: Decodable {
        var path: String?
        var data: Data?
        var mimeType: String
        var name: String?
    }

    var text: String?
    var images: [File]?
    var videos: [File]?
    var smartAction: SmartAction?
    var formComplete: FormCompletePayload?
    var screenShare: ScreenShareEventMessage?
}

/// `typing(true)`.
struct TypingArgument: ValueArgument {
    static let name = "is_typing"
    var value: Bool
}

/// `send_message_preview("what the end user is typing")`.
struct PreviewArgument: ValueArgument {
    static let name = "text"
    var value: String
}

/// `send_event{ name = "...", payload = { ... } }`: a name, and a table with string keys.
struct ChatEventArgument: BindingArguments {
    static let layout = ArgumentLayout.table("event")
    var name: String
    var payload: LuaValue?

    func problem() -> ArgumentProblem? { name.isEmpty ? ArgumentProblem("name", "a non-empty string expected") : nil }
}

/// `get_previous_chats{ current_page = 2 }`, or the page alone; the first by default.
struct PreviousChatsPage: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "current_page")
    var currentPage: Int?
}

/// `download_media(media.id, { media_type = "photo" })`: a document unless said.
struct MediaDownload: BindingArguments {
    static let layout = ArgumentLayout.leading("media_id", options: "options")
    var mediaId: Int
    var mediaType: ChatMediaType?
}

/// What `download_media` returns: the file's bytes and its name.
struct DownloadedMedia: Codable, Sendable {
    var data: Data
    var fileName: String?
}
