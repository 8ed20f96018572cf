import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.smart_action` (seed 003's `smartActionService`): the `requested` event and the
/// methods that answer a request, during a chat or a call. `router` defaults to the
/// session in progress: the current chat, else the current call.
///
/// ```lua
/// ccai.smart_action.on("requested", function(action)
///   if action.type ~= "text" then return end
///   ccai.smart_action.notify_smart_action_received{ smart_action_id = action.id }
///   ccai.smart_action.send_smart_action_result{ smart_action_id = action.id, result = { text = "ACME-1234" } }
///   ccai.smart_action.update_smart_action_status{ smart_action_id = action.id, status = "finished" }
/// end)
/// ```
enum SmartActionBindings {
    static let rows: [Binding<CCAI>] = [
        Binding("notify_smart_action_received", "Tells the platform the app has the request (status received).",
                notifySmartActionReceived),
        Binding("update_smart_action_status", "Moves the action to received, finished (its result sent) or failed.",
                updateSmartActionStatus),
        Binding("send_smart_action_result", "Sends what a text, verification or screen-share action asks for, or the reason "
                + "the end user declined.", sendSmartActionResult),
        Binding("get_smart_actions", "The session's smart actions so far, oldest first.", getSmartActions,
                returns: [.model([SmartAction].self)]),
    ]

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.smartAction.module)
        if let events = context.emitters[.smartAction] { module.events(events) }
        module.functions(rows) { _ in ccai }
        return module
    }

    static func notifySmartActionReceived(_ ccai: CCAI, _ options: SmartActionTarget, _ call: LuaCall) throws -> LuaReturn {
        let (service, router) = try session(options.router, ccai, call)
        return try SDKBindings.sdk(call, {
            try await service.notifySmartActionReceived(router: router, smartActionId: options.smartActionId)
        }, push: { _, _ in })
    }

    static func updateSmartActionStatus(_ ccai: CCAI, _ options: SmartActionStatusUpdate, _ call: LuaCall) throws -> LuaReturn {
        let (service, router) = try session(options.router, ccai, call)
        return try SDKBindings.sdk(call, {
            try await service.updateSmartActionStatus(router: router, smartActionId: options.smartActionId, status: options.status)
        }, push: { _, _ in })
    }

    static func sendSmartActionResult(_ ccai: CCAI, _ options: SmartActionResultRequest, _ call: LuaCall) throws -> LuaReturn {
        let (service, router) = try session(options.router, ccai, call)
        return try SDKBindings.sdk(call, {
            try await service.sendSmartActionResult(router: router, smartActionId: options.smartActionId, result: options.result)
        }, push: { _, _ in })
    }

    static func getSmartActions(_ ccai: CCAI, _ options: SmartActionSession, _ call: LuaCall) throws -> LuaReturn {
        let (service, router) = try session(options.router, ccai, call)
        return try SDKBindings.sdk(call) { try await service.getSmartActions(router: router) }
    }

    /// Emits the requests of the state's chats and calls as `requested` and lets the
    /// plugins answer them, once per state: from `initialize_chat` or `initialize_call`,
    /// whichever comes first.
    static func startRequests(_ context: SDKContext, started: EventBridge.Started, in state: LuaState) {
        guard !started.started else { return }
        started.started = true
        if let smartAction = context.emitters[.smartAction], let service = context.sdk.smartActionService {
            EventBridge.forward(from: service.requests, into: smartAction, in: state, named: { _ in "requested" },
                                as: { (try? LuaEncoder().encode($0)) ?? .nil })
        }
        if let plugins = context.plugins { SmartActionResponder(context: context, plugins: plugins).answerRequests(while: state) }
    }

    /// The service, and the session: `router`, or the one in progress: the current chat,
    /// else the current call, else the chat that ended last.
    private static func session(_ router: CommunicationRouter?, _ ccai: CCAI, _ call: LuaCall) throws
        -> (SmartActionService, CommunicationRouter)
    {
        let service = try SDKBindings.require(ccai.smartActionService, call)
        if let router { return (service, router) }
        let chat = ccai.chatService?.currentChat
        if let chat, chat.isInProgress { return (service, CommunicationRouter(id: chat.id, type: .chat)) }
        if let current = ccai.callService?.currentCall, current.isInProgress {
            return (service, CommunicationRouter(id: current.id, type: .call))
        }
        guard let chat else {
            throw call.argumentError(1, "options.router", "{ id = ..., type = \"chat\"|\"call\" } expected (there is no current chat or call)")
        }
        return (service, CommunicationRouter(id: chat.id, type: .chat))
    }
}

/// The session whose smart actions are meant: `router`, or the one in progress.
struct SmartActionSession: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var router: CommunicationRouter?
}

/// One smart action of a session.
struct SmartActionTarget: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var router: CommunicationRouter?
    var smartActionId: Int
}

/// `update_smart_action_status`'s options: a status the app may set (not `requested`).
struct SmartActionStatusUpdate: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var router: CommunicationRouter?
    var smartActionId: Int
    var status: SmartActionStatus

    func problem() -> ArgumentProblem? {
        status == .requested ? ArgumentProblem("status", "'received', 'finished' or 'failed' expected, got 'requested'") : nil
    }
}

/// `send_smart_action_result`'s options: what the action asked for.
struct SmartActionResultRequest: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var router: CommunicationRouter?
    var smartActionId: Int
    var result: SmartActionResult
}
