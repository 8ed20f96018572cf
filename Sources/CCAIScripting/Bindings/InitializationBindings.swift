import CCAIKit
import CCAIWire
import LuaRuntime

/// `ccai.initialize_chat`, `ccai.initialize_call` and `ccai.initialize_screen_share`: each
/// registers its service with the SDK and, the first time, starts the bridges that emit the
/// service's events into the state (and the smart-action requests, once chat or call is);
/// the chat's when a script first needs them (``ChatListening``).
enum InitializationBindings {
    static let rows: [Binding<Initializer>] = [
        Binding("initialize_chat", "Registers the chat module; ccai.chat works afterwards.", initializeChat),
        Binding("initialize_screen_share", "Registers screen sharing; ccai.screen_share works afterwards and chats start "
                + "screen-shareable.", initializeScreenShare),
        Binding("initialize_call", "Registers the call module; ccai.call works afterwards.", initializeCall),
    ]

    /// What the initializers work with: the state's SDK context, and whether each bridge has
    /// started (a second initialization registers the service again, not its events).
    struct Initializer {
        let context: SDKContext
        let chat = EventBridge.Started()
        let call = EventBridge.Started()
        let screenShare = EventBridge.Started()
        /// The smart-action requests flow once chat or call is initialized, whichever is first.
        let smartActions = EventBridge.Started()
    }

    static func install(_ context: SDKContext, into module: inout LuaModule) {
        let initializer = Initializer(context: context)
        module.functions(rows) { _ in initializer }
    }

    static func initializeChat(_ initializer: Initializer, _ options: ChatInitialization, _ call: LuaCall) throws -> LuaReturn {
        let context = initializer.context
        try requireOptions(context.sdk, "initialize_chat")
        context.sdk.initializeChat(ChatOptions(downloadTranscriptVisibility: options.visibility, greeting: options.greeting))
        if !initializer.chat.started, let service = context.sdk.chatService, let state = call.context.state {
            initializer.chat.started = true
            let (smartActions, recorder) = (initializer.smartActions, call.context.attachment(SDKMetricsRecorder.self))
            let listening = ChatListening { [weak state] in
                guard let state else { return }
                ChatBindings.startBridges(service, context: context, in: state, recorder: recorder)
                SmartActionBindings.startRequests(context, started: smartActions, in: state)
                if let plugins = context.plugins { FormResponder(context: context, plugins: plugins).answerRequests(while: state) }
            }
            call.context.attach(listening)
            for service in [EventService.chat, .smartAction] {
                context.emitters[service]?.whenFirstListenedTo = { [weak listening] in listening?.begin() }
            }
        }
        return .none
    }

    static func initializeCall(_ initializer: Initializer, _ options: CallInitialization, _ call: LuaCall) throws -> LuaReturn {
        let context = initializer.context
        try requireOptions(context.sdk, "initialize_call")
        context.sdk.initializeCall(CallOptions(playAudibleMessages: options.playAudibleMessages ?? true,
                                               callKitEnabled: options.callKitEnabled ?? true))
        if !initializer.call.started, let service = context.sdk.callService, let state = call.context.state {
            initializer.call.started = true
            CallBindings.startBridges(service, context: context, in: state, recorder: call.context.attachment(SDKMetricsRecorder.self))
            SmartActionBindings.startRequests(context, started: initializer.smartActions, in: state)
        }
        return .none
    }

    static func initializeScreenShare(_ initializer: Initializer, _ options: ScreenShareInitialization, _ call: LuaCall) throws
        -> LuaReturn
    {
        let ccai = initializer.context.sdk
        guard let key = options.key ?? ccai.options?.key, !key.isEmpty else {
            throw call.argumentError(1, "options.key", "the screen share key expected")
        }
        do {
            try ccai.initializeScreenShare(options: ScreenShareOptions(key: key, domain: options.domain))
        } catch let error as any SDKError {
            throw SDKBindings.luaError(error, service: "screen_share", method: "initialize_screen_share")
        }
        if !initializer.screenShare.started, let service = ccai.screenShareService, let state = call.context.state {
            initializer.screenShare.started = true
            ScreenShareBindings.startBridges(service, context: initializer.context, in: state)
        }
        return .none
    }

    /// Chat and call need the SDK initialized (its key and host): `not_initialized` before.
    private static func requireOptions(_ ccai: CCAI, _ method: String) throws {
        guard ccai.options == nil else { return }
        let service = method == "initialize_chat" ? "chat" : "call"
        throw LuaErrorValue(code: .notInitialized, message: "the SDK is not initialized",
                            fields: ["service": .string(service), "method": .string(method)])
    }
}

/// `initialize_chat{ greeting, download_transcript_visibility }`: the visibility is one
/// name or a list of them.
struct ChatInitialization: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var greeting: String?
    var downloadTranscriptVisibility: VisibilityNames?

    /// One of ``TranscriptVisibilityName``, or a list of them.
    struct VisibilityNames: Decodable {
        var names: [TranscriptVisibilityName]

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if case .table = try container.decode(LuaValue.self) {
                names = try container.decode([TranscriptVisibilityName].self)
            } else {
                names = [try container.decode(TranscriptVisibilityName.self)]
            }
        }
    }

    var visibility: DownloadTranscriptVisibility {
        (downloadTranscriptVisibility?.names ?? []).reduce(into: []) { $0.formUnion($1.visibility) }
    }

    static func shape(in schema: LuaSchema) throws -> LuaShape {
        let name = try schema.shape(of: TranscriptVisibilityName.self)
        return .object([.init(name: "greeting", shape: .string, isOptional: true),
                        .init(name: "download_transcript_visibility", shape: .union([name, .list(name)]), isOptional: true)])
    }
}

/// What `download_transcript_visibility` may name (seed 000's `DownloadTranscriptVisibility`).
enum TranscriptVisibilityName: String, Decodable, CaseIterable {
    case hideInOptionMenu = "hide_in_option_menu"
    case hideInPostChat = "hide_in_post_chat"
    case hideAll = "hide_all"

    var visibility: DownloadTranscriptVisibility {
        switch self {
        case .hideInOptionMenu: return .hideInOptionMenu
        case .hideInPostChat: return .hideInPostChat
        case .hideAll: return .hideAll
        }
    }
}

/// `initialize_call{ play_audible_messages, call_kit_enabled }`, both true by default.
struct CallInitialization: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var playAudibleMessages: Bool?
    var callKitEnabled: Bool?
}

/// `initialize_screen_share{ key, domain }`: the SDK's key unless given.
struct ScreenShareInitialization: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var key: String?
    var domain: String?
}
