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
    static func install(into chat: inout LuaModule, _ context: SDKContext) {
        let ccai = context.sdk
        chat.function("send_message", LuaSignature("Sends a message in the current chat: text, images or videos (one message each, returned in order; optionally answering a smart action), or a web form's form-complete event.",
                                                   parameters: ["message: string|{ text: string?, images: { path: string?, data: string?, mime_type: string, name: string? }[]?, videos: { path: string?, data: string?, mime_type: string, name: string? }[]?, smart_action: table?, form_complete: table? }"],
                                                   returns: ["ccai.ChatMessage..."])) { call in
            let content = try OutgoingContentReader(call: call, context: context).read()
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, {
                try await content.send(with: service)
            }, push: { messages, output in
                for message in messages { output.push(try LuaEncoder().encode(message)) }
            })
        }
        chat.function("typing", LuaSignature("Tells the agent whether the end user is typing.",
                                             parameters: ["is_typing: boolean"])) { call in
            let typing = try call.boolean(1, "is_typing")
            try ChatBindings.requireChat(ccai, call).typing(typing)
            return .none
        }
        chat.function("send_message_preview", LuaSignature("Shows the agent what the end user is typing; false when a newer preview was already sent.",
                                                           parameters: ["text: string"], returns: ["boolean"])) { call in
            let text = try call.string(1, "text")
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.sendMessagePreview(text) },
                                       push: { kept, output in output.push(.boolean(kept)) })
        }
        chat.function("send_event", LuaSignature("Reports an interaction of the end user for the platform to track.",
                                                 parameters: ["event: { name: string, payload: table? }"])) { call in
            let options = try call.options(1, "event")
            guard let name = try options.string("name"), !name.isEmpty else {
                throw call.argumentError(1, "event.name", "a non-empty string expected")
            }
            let given = try options.value("payload")
            var payload: [String: JSONValue]?
            if !given.isNil {
                guard let table = given.tableValue, table.sequence.isEmpty,
                    table.fields.keys.allSatisfy({ $0.stringValue != nil }), let object = ChatBindings.json(given)?.objectValue
                else { throw call.argumentError(1, "event.payload", "a table with string keys expected") }
                payload = object
            }
            let service = try ChatBindings.requireChat(ccai, call)
            let event = ChatEvent(name: name, payload: payload)
            return try SDKBindings.sdk(call, { try await service.sendEvent(event) }, push: { _, _ in })
        }
        chat.function("get_messages", LuaSignature("The current chat's messages, in order.",
                                                   returns: ["ccai.ChatMessage[]"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.getMessages() }
        }
        chat.function("get_previous_chats", LuaSignature("A page (from 1) of ended chats with their messages.",
                                                         parameters: ["options?: { current_page: integer? }|integer"],
                                                         returns: ["{ chats: ccai.Chat[], messages: ccai.ChatMessage[], current_page: integer, total_pages: integer }"])) { call in
            let positional: Int64? = (try? call.optionalInteger(1, "current_page")) ?? nil
            let page = try positional ?? call.options(1, "options").integer("current_page") ?? 1
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.getPreviousChats(currentPage: Int(page)) }
        }
        chat.function("download_media", LuaSignature("Downloads a file of a chat message (message.media): its bytes and file name.",
                                                     parameters: ["media_id: integer", "options?: { media_type: string? }"],
                                                     returns: ["{ data: string, file_name: string? }"])) { call in
            let id = try call.integer(1, "media_id")
            let typeName = try call.options(2, "options").string("media_type") ?? "document"
            guard let type = ChatMediaType(rawValue: typeName) else {
                throw call.argumentError(2, "options.media_type", ChatMediaType.allCases.map { "'\($0.rawValue)'" }
                                            .joined(separator: ", ") + " expected, got '\(typeName)'")
            }
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.downloadMedia(Int(id), mediaType: type) },
                                       push: { file, output in
                                           var table = LuaTable()
                                           table["data"] = .data(file.data)
                                           if let name = file.fileName { table["file_name"] = .string(name) }
                                           output.push(.table(table))
                                       })
        }
    }
}
