import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// Signs claims into a JWT with the company secret, for `custom_data = { signed = {...} }`
/// (docs/lua-runtime.md, the sandbox: the host signs, scripts never see the secret).
public protocol ClaimsSigner: Sendable {
    func signClaims(_ claims: [String: JSONValue]) throws -> String
}

/// `ccai.initialize_chat(options)` and `ccai.chat`: the chat service's lifecycle here,
/// its messages (MessageBindings), escalations (EscalationBindings), forms (FormBindings),
/// post-session and transcripts (PostSessionBindings), and its events (EventBridge).
enum ChatBindings {
    static func initializeFunction(_ context: SDKContext, smartActions: EventBridge.Started) -> LuaFunctionBody {
        let bridge = EventBridge.Started()
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
                SmartActionBindings.startRequests(context, started: smartActions, in: state)
                call.context.attachment(SDKMetricsRecorder.self)?.observe(service.chatEvents())
                if let plugins = context.plugins { FormResponder(context: context, plugins: plugins).answerRequests(while: state) }
            }
            return .none
        }
    }

    /// Emits the chat service's typed events into the state until it closes (screen share
    /// has its bridge, started with its service; smart actions theirs, with chat or call).
    private static func startBridges(_ service: ChatService, context: SDKContext, in state: LuaState) {
        if let chat = context.emitters[.chat] {
            EventBridge.forward(service.chatEvents(), into: chat, in: state) { event in
                (event.name.rawValue, EventBridge.luaValue(event))
            }
        }
    }

    static func module(_ context: SDKContext) -> LuaModule {
        var chat = LuaModule(name: EventService.chat.module)
        if let events = context.emitters[.chat] { chat.events(events) }
        installLifecycle(into: &chat, context)
        MessageBindings.install(into: &chat, context)
        EscalationBindings.install(into: &chat, context.sdk)
        FormBindings.install(into: &chat, context.sdk)
        PostSessionBindings.install(into: &chat, context)
        return chat
    }

    /// Starting, resuming, checking and ending chats.
    private static func installLifecycle(into chat: inout LuaModule, _ context: SDKContext) {
        let ccai = context.sdk
        chat.function("start", LuaSignature("Starts a chat on a queue. On a queue that requires pre-session smart actions the host answers them through plugins and enqueues the chat, unless enqueue = false (the chat then stays pending until enqueue_current_chat).",
                                            parameters: ["request: { menu_id: integer, lang: string?, ticket_id: string?, greeting: string?, custom_data: table?, display_order_in_adapter: string[]?, is_screen_shareable: boolean?, is_verifiable: boolean?, enqueue: boolean? }"],
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
        chat.function("get_current_chat", LuaSignature("The chat the SDK works on.", returns: ["ccai.Chat?"])) { call in
            let service = try requireChat(ccai, call)
            return call.returning(try service.currentChat.map { try LuaEncoder().encode($0) } ?? .nil)
        }
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

    /// Reads `{ menu_id, lang, ticket_id, greeting, custom_data, display_order_in_adapter,
    /// is_screen_shareable, is_verifiable }` (and `enqueue`, which `start` reads); another
    /// field is refused, named.
    static func chatRequest(_ call: LuaCall, signer: ClaimsSigner?) throws -> ChatRequest {
        let options = try call.checkedOptions(1, "request", known: ["menu_id", "lang", "ticket_id", "greeting", "custom_data",
                                                                    "display_order_in_adapter", "is_screen_shareable",
                                                                    "is_verifiable", "enqueue"])
        guard let menuID = try options.integer("menu_id") else {
            throw call.argumentError(1, "request", "field 'menu_id': integer expected, got nil")
        }
        var request = ChatRequest(menuId: Int(menuID), lang: try options.string("lang"),
                                  ticketId: try options.string("ticket_id"), greeting: try options.string("greeting"),
                                  displayOrderInAdapter: try displayOrder(call, options),
                                  isScreenShareable: try options.boolean("is_screen_shareable"),
                                  isVerifiable: try options.boolean("is_verifiable"))
        request.customData = try customData(call, options, signer: signer)
        return request
    }

    /// A session request's `custom_data`: `{ signed = {...} }` (signed here with the
    /// company secret) or `{ unsigned = {...} }`; nil when not given.
    static func customData(_ call: LuaCall, _ options: LuaOptions, signer: ClaimsSigner?) throws -> CustomData? {
        try customData(call, try options.value("custom_data"), signer: signer)
    }

    /// The same, from the value of `custom_data` as the script wrote it.
    static func customData(_ call: LuaCall, _ customData: LuaValue, signer: ClaimsSigner?) throws -> CustomData? {
        guard !customData.isNil else { return nil }
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
            do {
                return CustomData(signed: try signer.signClaims(["custom_data": .object(claims)]))
            } catch let error as any SDKError {
                let (service, method) = SDKBindings.serviceAndMethod(of: call)
                throw SDKBindings.luaError(error, service: service, method: method)
            }
        } else if let unsigned = table["unsigned"], !unsigned.isNil {
            do {
                return CustomData(unsigned: try LuaDecoder().decode(CustomDataPayload.self, from: unsigned))
            } catch let error as DecodingError {
                throw call.argumentError(1, "request", "field 'custom_data.unsigned': \(SDKBindings.describe(error))")
            }
        } else {
            throw call.argumentError(1, "request", "field 'custom_data': { signed = {...} } or { unsigned = {...} } expected")
        }
    }

    /// `display_order_in_adapter`: a list of custom data keys, or nil.
    private static func displayOrder(_ call: LuaCall, _ options: LuaOptions) throws -> [String]? {
        let value = try options.value("display_order_in_adapter")
        guard !value.isNil else { return nil }
        guard let table = value.tableValue, table.fields.isEmpty else {
            throw call.argumentError(1, "request", "field 'display_order_in_adapter': a list of custom data keys expected, got \(value.typeName)")
        }
        return try table.sequence.enumerated().map { index, key in
            guard let name = key.stringValue else {
                throw call.argumentError(1, "request", "field 'display_order_in_adapter[\(index + 1)]': string expected, got \(key.typeName)")
            }
            return name
        }
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
