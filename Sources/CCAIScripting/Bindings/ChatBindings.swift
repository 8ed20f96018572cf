import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// Signs claims into a JWT with the company secret, for `custom_data = { signed = {...} }`
/// (docs/lua-runtime.md, the confined state: the host signs, scripts never see the secret).
public protocol ClaimsSigner: Sendable {
    func signClaims(_ claims: [String: JSONValue]) throws -> String
}

/// `ccai.initialize_chat(options)` and `ccai.chat`: the chat service's lifecycle here,
/// its messages (MessageBindings), escalations (EscalationBindings), forms (FormBindings),
/// post-session and transcripts (PostSessionBindings), and its events (EventBridge).
enum ChatBindings {
    /// Emits the chat service's typed events into the state until it closes, and shows each
    /// to the VU's metrics (`recorder`) as it arrives (screen share has its bridge, started
    /// with its service; smart actions theirs, with chat or call).
    static func startBridges(_ service: ChatService, context: SDKContext, in state: LuaState, recorder: SDKMetricsRecorder?) {
        let observe = recorder.map { recorder in { @Sendable (event: ChatServiceEvent) in recorder.observe(event, at: recorder.clock.now()) } }
        if let chat = context.emitters[.chat] {
            EventBridge.forward(from: service.chatEvents, into: chat, in: state, conversations: \.conversations, observe: observe,
                                named: { $0.name.rawValue }, as: { EventBridge.luaValue($0) })
        } else if let recorder {
            recorder.observe(service.chatEvents())
        }
    }

    /// Starts the chat's listeners, if they wait (``ChatListening``): before a chat is
    /// started, looked for or resumed.
    static func listen(_ call: LuaCall) {
        call.context.attachment(ChatListening.self)?.begin()
    }

    /// The chat's table for the state whose context `shared` holds: its rows' handlers
    /// resolve the context through that one reference.
    static func module(_ shared: SDKContextReference) -> LuaModule {
        let context = shared.context
        var chat = LuaModule(name: EventService.chat.module)
        if let events = context.emitters[.chat] { chat.events(events) }
        let resolve = shared.resolve
        chat.functions(lifecycleRows, context: resolve)
        chat.functions(MessageBindings.rows, context: resolve)
        EscalationBindings.install(into: &chat, context.sdk)
        FormBindings.install(into: &chat, context.sdk)
        chat.functions(PostSessionBindings.chatRows, context: resolve)
        return chat
    }

    /// Starting, resuming, checking and ending chats.
    static let lifecycleRows: [Binding<SDKContext>] = [
        Binding("start", "Starts a chat on a queue. On a queue that requires pre-session smart actions the host answers them "
                + "through plugins and enqueues the chat, unless enqueue = false (the chat then stays pending until "
                + "enqueue_current_chat).", start, returns: [.model(ChatResponse.self)]),
        Binding("enqueue_current_chat", "Moves a pending chat (waiting for its pre-session smart actions) into its queue, then "
                + "refreshes it.", enqueueCurrentChat),
        Binding("get_last_chat_in_progress", "The end user's chat in progress, if any.", getLastChatInProgress,
                returns: [.model(ChatResponse.self, optional: true)]),
        Binding("resume_chat", "Continues with a chat in progress.", resumeChat),
        Binding("check_status", "Refreshes the current chat from the platform.", checkStatus, returns: [.model(ChatResponse.self)]),
        Binding("end_chat", "Ends the current chat.", endChat),
        Binding("get_current_chat", "The chat the SDK works on.", getCurrentChat, returns: [.model(ChatResponse.self, optional: true)]),
    ]

    static func start(_ context: SDKContext, _ options: ChatStartArguments, _ call: LuaCall) throws -> LuaReturn {
        let request = ChatRequest(menuId: options.menuId, lang: options.lang, ticketId: options.ticketId, greeting: options.greeting,
                                  customData: try customData(call, options.customData, signer: context.signer),
                                  displayOrderInAdapter: options.displayOrderInAdapter,
                                  isScreenShareable: options.isScreenShareable, isVerifiable: options.isVerifiable)
        let service = try requireChat(context.sdk, call)
        listen(call)
        let responder = context.plugins.map { SmartActionResponder(context: context, plugins: $0) }
        let enqueue = options.enqueue ?? true
        return try SDKBindings.sdk(call) {
            let chat = try await service.start(request: request)
            guard chat.status == .pending, enqueue else { return chat }
            await responder?.answerPreSession(chat)
            try await service.enqueueCurrentChat()
            return service.currentChat ?? chat
        }
    }

    static func enqueueCurrentChat(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try requireChat(context.sdk, call)
        return try SDKBindings.sdk(call, { try await service.enqueueCurrentChat() }, push: { _, _ in })
    }

    static func getLastChatInProgress(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try requireChat(context.sdk, call)
        listen(call)
        return try SDKBindings.sdk(call) { try await service.getLastChatInProgress() }
    }

    static func resumeChat(_ context: SDKContext, _ argument: ChatValueArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = try requireChat(context.sdk, call)
        listen(call)
        return try SDKBindings.sdk(call, { try await service.resumeChat(argument.value) }, push: { _, _ in })
    }

    static func checkStatus(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) { try await service.checkStatus() }
    }

    static func endChat(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try requireChat(context.sdk, call)
        return try SDKBindings.sdk(call, { try await service.endChat() }, push: { _, _ in })
    }

    static func getCurrentChat(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(try requireChat(context.sdk, call).currentChat.map { try LuaEncoder().encode($0) } ?? .nil)
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

    /// A session request's `custom_data`: `{ signed = {...} }` (signed here with the
    /// company secret) or `{ unsigned = {...} }`; nil when not given.
    static func customData(_ call: LuaCall, _ argument: CustomDataArgument?, signer: ClaimsSigner?) throws -> CustomData? {
        guard let customData = argument?.value, !customData.isNil else { return nil }
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

/// `ccai.chat.start{ menu_id, lang, ticket_id, greeting, custom_data, display_order_in_adapter,
/// is_screen_shareable, is_verifiable, enqueue }` (seed 001's `ChatRequest`, and `enqueue`).
struct ChatStartArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var menuId: Int
    var lang: String?
    var ticketId: String?
    var greeting: String?
    var customData: CustomDataArgument?
    /// Custom data keys, in the order the agent's adapter shows them.
    var displayOrderInAdapter: [String]?
    var isScreenShareable: Bool?
    var isVerifiable: Bool?
    /// Whether a chat waiting for pre-session smart actions is enqueued once they are answered.
    var enqueue: Bool?
}

/// A chat table, as the SDK returned it (`ccai.chat.resume_chat(chat)`).
struct ChatValueArgument: ValueArgument {
    static let name = "chat"
    var value: ChatResponse
}

/// A session request's `custom_data`: `{ signed = {...} }` (signed by the host) or
/// `{ unsigned = {...} }`, read as the script wrote it by ``ChatBindings/customData(_:_:signer:)``.
struct CustomDataArgument: Decodable {
    var value: LuaValue

    init(from decoder: Decoder) throws {
        value = try decoder.singleValueContainer().decode(LuaValue.self)
    }
}

/// The chat service's listeners in a state: the bridge of its events into the state, the
/// smart-action and form requests, the metrics' observer. `initialize_chat` makes them and
/// they start when a script first needs them (a chat started, looked for or resumed; a
/// first `on` or `wait_for` of `ccai.chat`): each subscribes to the SDK's event stream, which
/// signs in and opens it, so a VU that has not come to its chat yet holds neither.
final class ChatListening: @unchecked Sendable {
    private var start: (() -> Void)?

    init(_ start: @escaping () -> Void) {
        self.start = start
    }

    /// Starts the listeners the first time; later calls do nothing. On the state's executor.
    func begin() {
        let start = self.start
        self.start = nil
        start?()
    }
}
