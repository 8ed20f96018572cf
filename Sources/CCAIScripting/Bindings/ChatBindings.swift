import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// Signs claims into a JWT with the company secret, for `custom_data = { signed = {...} }`
/// (docs/lua-runtime.md, the sandbox: the host signs, scripts never see the secret).
public protocol ClaimsSigner: Sendable {
    func signClaims(_ claims: [String: JSONValue]) throws -> String
}

/// `ccai.initialize_chat(options)` and `ccai.chat`: every method of the chat service
/// (`start`, `send_message`, `enqueue_current_chat`, `download_media`, ...) and its events.
enum ChatBindings {
    /// `{ escalation_id = 123, deflection_channel = "email" }` as a `ChatEscalationOption`.
    static func escalationOption(_ call: LuaCall) throws -> ChatEscalationOption {
        guard !call.isNil(1) else { throw call.argumentError(1, "option", "a table { escalation_id = ... } expected") }
        let options = try call.options(1, "option")
        guard let id = try options.integer("escalation_id") else {
            throw call.argumentError(1, "option.escalation_id", "an integer expected")
        }
        return ChatEscalationOption(escalationId: Int(id), deflectionChannel: try options.string("deflection_channel"))
    }

    /// The names of the chat events scripts can subscribe to (docs/lua-runtime.md, events).
    static let eventNames = Set(ChatServiceEvent.Name.allCases.map(\.rawValue))

    /// Whether a state's bridge from the SDK's chat events to its emitter runs.
    final class Bridge: @unchecked Sendable {
        var started = false
    }

    static func initializeFunction(_ context: SDKContext) -> LuaFunctionBody {
        let bridge = Bridge()
        let ccai = context.sdk
        return { call in
            guard ccai.options != nil else {
                throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "the SDK is not initialized",
                                    fields: ["service": "chat", "method": "initialize_chat"])
            }
            let options = try call.options(1, "options")
            var visibility: DownloadTranscriptVisibility = []
            let value = try options.value("download_transcript_visibility")
            let names = value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue) ?? []
            for name in names {
                switch name {
                case "hide_in_option_menu": visibility.insert(.hideInOptionMenu)
                case "hide_in_post_chat": visibility.insert(.hideInPostChat)
                case "hide_all": visibility.formUnion(.hideAll)
                default:
                    throw call.argumentError(1, "options", "field 'download_transcript_visibility': 'hide_in_option_menu', 'hide_in_post_chat' or 'hide_all' expected, got '\(name)'")
                }
            }
            ccai.initializeChat(ChatOptions(downloadTranscriptVisibility: visibility, greeting: try options.string("greeting")))
            if !bridge.started, let service = ccai.chatService, let state = call.context.state {
                bridge.started = true
                startBridges(service, context: context, in: state)
                if let plugins = context.plugins {
                    SmartActionResponder(context: context, plugins: plugins).answerRequests(while: state)
                    FormResponder(context: context, plugins: plugins).answerRequests(while: state)
                }
            }
            return .none
        }
    }

    /// Emits the chat service's typed events and the smart action requests into the
    /// state until it closes (screen share has its bridge, started with its service).
    private static func startBridges(_ service: ChatService, context: SDKContext, in state: LuaState) {
        if let chat = context.chatEvents {
            EventBridge.forward(service.chatEvents(), into: chat, in: state) { event in
                (event.name.rawValue, EventBridge.luaValue(event))
            }
        }
        if let smartAction = context.smartActionEvents, let requests = context.sdk.smartActionService?.requests() {
            EventBridge.forward(requests, into: smartAction, in: state) { action in
                ("requested", (try? LuaEncoder().encode(action)) ?? .nil)
            }
        }
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var chat = LuaModule(name: "ccai.chat")
        if let events = context.chatEvents { chat.events(events) }
        chat.function("start", LuaSignature("Starts a chat on a queue. On a queue that requires pre-session smart actions the host answers them through plugins and enqueues the chat, unless enqueue = false (the chat then stays pending until enqueue_current_chat).",
                                            parameters: ["request: { menu_id: integer, lang: string?, ticket_id: string?, greeting: string?, custom_data: table?, is_screen_shareable: boolean?, enqueue: boolean? }"],
                                            returns: ["ccai.Chat"])) { call in
            let request = try chatRequest(call, signer: context.signer)
            let enqueue = try call.options(1, "request").boolean("enqueue") ?? true
            let service = try requireChat(ccai, call)
            let responder = context.plugins.map { SmartActionResponder(context: context, plugins: $0) }
            return try SDKBindings.sdk(call) {
                let chat = try await service.start(request: request)
                guard chat.status == .pending, enqueue else { return chat }
                await responder?.answerPreSession(chat)
                try await service.enqueueCurrentChat()
                return service.currentChat ?? chat
            }
        }
        chat.function("enqueue_current_chat", LuaSignature("Moves a pending chat (waiting for its pre-session smart actions) into its queue, then refreshes it.")) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.enqueueCurrentChat() },
                                       push: { _, _ in })
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
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.downloadMedia(Int(id), mediaType: type) },
                                       push: { file, output in
                                           var table = LuaTable()
                                           table["data"] = .data(file.data)
                                           if let name = file.fileName { table["file_name"] = .string(name) }
                                           output.push(.table(table))
                                       })
        }
        chat.function("get_last_chat_in_progress", LuaSignature("The end user's chat in progress, if any.",
                                                                returns: ["ccai.Chat?"])) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, {
                try await service.getLastChatInProgress()
            }, push: { chat, output in output.push(try chat.map { try LuaEncoder().encode($0) } ?? .nil) })
        }
        chat.function("resume_chat", LuaSignature("Continues with a chat in progress.", parameters: ["chat: ccai.Chat"])) { call in
            let chat: ChatResponse
            do {
                chat = try LuaDecoder().decode(ChatResponse.self, from: .table(try call.table(1, "chat")))
            } catch let error as DecodingError {
                throw call.argumentError(1, "chat", "a chat expected (\(SDKBindings.describe(error)))")
            }
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.resumeChat(chat) },
                                       push: { _, _ in })
        }
        chat.function("check_status", LuaSignature("Refreshes the current chat from the platform.", returns: ["ccai.Chat"])) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.checkStatus() }
        }
        chat.function("end_chat", LuaSignature("Ends the current chat.")) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.endChat() }, push: { _, _ in })
        }
        chat.function("send_message", LuaSignature("Sends a message in the current chat: text, images or videos (one message each, returned in order; optionally answering a smart action), or a web form's form-complete event.",
                                                   parameters: ["message: string|{ text: string?, images: { path: string?, data: string?, mime_type: string, name: string? }[]?, videos: { path: string?, data: string?, mime_type: string, name: string? }[]?, smart_action: table?, form_complete: table? }"],
                                                   returns: ["ccai.ChatMessage..."])) { call in
            let content = try OutgoingContentReader(call: call, context: context).read()
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, {
                try await content.send(with: service)
            }, push: { messages, output in
                for message in messages { output.push(try LuaEncoder().encode(message)) }
            })
        }
        chat.function("typing", LuaSignature("Tells the agent whether the end user is typing.",
                                             parameters: ["is_typing: boolean"])) { call in
            let typing = try call.boolean(1, "is_typing")
            try requireChat(ccai, call).typing(typing)
            return .none
        }
        chat.function("send_message_preview", LuaSignature("Shows the agent what the end user is typing; false when a newer preview was already sent.",
                                                           parameters: ["text: string"], returns: ["boolean"])) { call in
            let text = try call.string(1, "text")
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.sendMessagePreview(text) },
                                       push: { kept, output in output.push(.boolean(kept)) })
        }
        chat.function("escalate_to_human_agent", LuaSignature("Leaves the virtual agent for a human agent.")) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.escalateToHumanAgent() },
                                       push: { _, _ in })
        }
        chat.function("escalate", LuaSignature("Escalates from the virtual agent with the option the end user picked.",
                                               parameters: ["option: { escalation_id: integer, deflection_channel: string? }"])) { call in
            let option = try escalationOption(call)
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.escalate(option: option) }, push: { _, _ in })
        }
        chat.function("update_escalation", LuaSignature("Commits an option to an escalation under way.",
                                                        parameters: ["option: { escalation_id: integer, deflection_channel: string? }"])) { call in
            let option = try escalationOption(call)
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.updateEscalation(option: option) },
                                       push: { _, _ in })
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
                    table.fields.keys.allSatisfy({ $0.stringValue != nil }), let object = json(given)?.objectValue
                else { throw call.argumentError(1, "event.payload", "a table with string keys expected") }
                payload = object
            }
            let service = try requireChat(ccai, call)
            let event = ChatEvent(name: name, payload: payload)
            return try SDKBindings.sdk(call, { try await service.sendEvent(event) }, push: { _, _ in })
        }
        chat.function("get_messages", LuaSignature("The current chat's messages, in order.",
                                                   returns: ["ccai.ChatMessage[]"])) { call in
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.getMessages() }
        }
        chat.function("get_previous_chats", LuaSignature("A page (from 1) of ended chats with their messages.",
                                                         parameters: ["options?: { current_page: integer? }|integer"],
                                                         returns: ["{ chats: ccai.Chat[], messages: ccai.ChatMessage[], current_page: integer, total_pages: integer }"])) { call in
            let positional: Int64? = (try? call.optionalInteger(1, "current_page")) ?? nil
            let page = try positional ?? call.options(1, "options").integer("current_page") ?? 1
            let service = try requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.getPreviousChats(currentPage: Int(page)) }
        }
        FormBindings.install(into: &chat, ccai)
        PostSessionBindings.install(into: &chat, context)
        chat.function("get_current_chat", LuaSignature("The chat the SDK works on.", returns: ["ccai.Chat?"])) { call in
            let service = try requireChat(ccai, call)
            return call.returning(try service.currentChat.map { try LuaEncoder().encode($0) } ?? .nil)
        }
        return chat
    }

    /// The chat service, or `not_initialized` naming the method.
    static func requireChat(_ ccai: CCAI, _ call: LuaCall) throws -> ChatService {
        guard let service = ccai.chatService else {
            let (name, method) = SDKBindings.serviceAndMethod(of: call)
            throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "chat is not initialized: call ccai.initialize_chat() first",
                                fields: ["service": .string(name), "method": .string(method)])
        }
        return service
    }

    /// Reads `{ menu_id, lang, ticket_id, greeting, custom_data }`.
    static func chatRequest(_ call: LuaCall, signer: ClaimsSigner?) throws -> ChatRequest {
        let options = try call.options(1, "request")
        guard let menuID = try options.integer("menu_id") else {
            throw call.argumentError(1, "request", "field 'menu_id': integer expected, got nil")
        }
        var request = ChatRequest(menuId: Int(menuID), lang: try options.string("lang"),
                                  ticketId: try options.string("ticket_id"), greeting: try options.string("greeting"),
                                  isScreenShareable: try options.boolean("is_screen_shareable"))
        let customData = try options.value("custom_data")
        guard !customData.isNil else { return request }
        guard let table = customData.tableValue else {
            throw call.argumentError(1, "request", "field 'custom_data': table expected, got \(customData.typeName)")
        }
        if let signed = table["signed"], !signed.isNil {
            guard let signer else {
                throw call.argumentError(1, "request", "field 'custom_data.signed': signing needs the company secret (--company-secret or the embedded sandbox)")
            }
            guard let claims = json(signed)?.objectValue else {
                throw call.argumentError(1, "request", "field 'custom_data.signed': a table of claims expected")
            }
            request.customData = CustomData(signed: try signer.signClaims(["custom_data": .object(claims)]))
        } else if let unsigned = table["unsigned"], !unsigned.isNil {
            do {
                request.customData = CustomData(unsigned: try LuaDecoder().decode(CustomDataPayload.self, from: unsigned))
            } catch let error as DecodingError {
                throw call.argumentError(1, "request", "field 'custom_data.unsigned': \(SDKBindings.describe(error))")
            }
        } else {
            throw call.argumentError(1, "request", "field 'custom_data': { signed = {...} } or { unsigned = {...} } expected")
        }
        return request
    }

    /// A Lua value as JSON.
    static func json(_ value: LuaValue) -> JSONValue? {
        switch value {
        case .nil: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .number(let d): return .number(d)
        case .string(let s): return .string(s)
        case .data: return nil
        case .table(let table):
            if table.fields.isEmpty, !table.sequence.isEmpty { return .array(table.sequence.compactMap(json)) }
            var object: [String: JSONValue] = [:]
            for (key, element) in table.entries {
                guard let name = key.stringValue ?? key.integerValue.map(String.init), let converted = json(element) else { continue }
                object[name] = converted
            }
            return .object(object)
        }
    }
}
