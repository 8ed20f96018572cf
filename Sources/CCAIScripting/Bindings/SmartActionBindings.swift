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
    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.smartAction.module)
        if let events = context.emitters[.smartAction] { module.events(events) }
        let routerParameter = "router: { id: integer, type: \"chat\"|\"call\" }?"
        module.function("notify_smart_action_received", LuaSignature(
            "Tells the platform the app has the request (status received).",
            parameters: ["options: { \(routerParameter), smart_action_id: integer }"])) { call in
            let (service, router, id) = try target(call, ccai)
            return try SDKBindings.sdk(call, {
                try await service.notifySmartActionReceived(router: router, smartActionId: id)
            }, push: { _, _ in })
        }
        module.function("update_smart_action_status", LuaSignature(
            "Moves the action to received, finished (its result sent) or failed.",
            parameters: ["options: { \(routerParameter), smart_action_id: integer, status: \"received\"|\"finished\"|\"failed\" }"])) { call in
            let (service, router, id) = try target(call, ccai)
            let name = try call.options(1, "options").string("status")
            guard let status = name.flatMap(SmartActionStatus.init(rawValue:)), status != .requested else {
                throw call.argumentError(1, "options.status", "'received', 'finished' or 'failed' expected, got "
                                            + (name.map { "'\($0)'" } ?? "nil"))
            }
            return try SDKBindings.sdk(call, {
                try await service.updateSmartActionStatus(router: router, smartActionId: id, status: status)
            }, push: { _, _ in })
        }
        module.function("send_smart_action_result", LuaSignature(
            "Sends what a text, verification or screen-share action asks for, or the reason the end user declined.",
            parameters: ["options: { \(routerParameter), smart_action_id: integer, result: { text: string?, verified: boolean?, screen_share: boolean?, decline_reason: string? } }"])) { call in
            let (service, router, id) = try target(call, ccai)
            let value = try call.options(1, "options").value("result")
            guard value.tableValue != nil else { throw call.argumentError(1, "options.result", "a table { text = ... } expected") }
            let result: SmartActionResult
            do {
                result = try LuaDecoder().decode(SmartActionResult.self, from: value)
            } catch let error as DecodingError {
                throw call.argumentError(1, "options.result", SDKBindings.describe(error))
            }
            return try SDKBindings.sdk(call, {
                try await service.sendSmartActionResult(router: router, smartActionId: id, result: result)
            }, push: { _, _ in })
        }
        module.function("get_smart_actions", LuaSignature("The session's smart actions so far, oldest first.",
                                                          parameters: ["options?: { \(routerParameter) }"],
                                                          returns: ["ccai.SmartAction[]"])) { call in
            let service = try SDKBindings.require(ccai.smartActionService, call)
            let router = try self.router(call, ccai)
            return try SDKBindings.sdk(call) { try await service.getSmartActions(router: router) }
        }
        return module
    }

    /// Emits the requests of the state's chats and calls as `requested` and lets the
    /// plugins answer them, once per state: from `initialize_chat` or `initialize_call`,
    /// whichever comes first.
    static func startRequests(_ context: SDKContext, started: EventBridge.Started, in state: LuaState) {
        guard !started.started else { return }
        started.started = true
        if let smartAction = context.emitters[.smartAction], let requests = context.sdk.smartActionService?.requests() {
            EventBridge.forward(requests, into: smartAction, in: state) { action in
                ("requested", (try? LuaEncoder().encode(action)) ?? .nil)
            }
        }
        if let plugins = context.plugins { SmartActionResponder(context: context, plugins: plugins).answerRequests(while: state) }
    }

    /// The service, the router and `smart_action_id` of a call's options.
    private static func target(_ call: LuaCall, _ ccai: CCAI) throws -> (SmartActionService, CommunicationRouter, Int) {
        let service = try SDKBindings.require(ccai.smartActionService, call)
        guard let id = try call.options(1, "options").integer("smart_action_id") else {
            throw call.argumentError(1, "options.smart_action_id", "an integer expected")
        }
        return (service, try router(call, ccai), Int(id))
    }

    /// `options.router`, or the session in progress: the current chat, else the current
    /// call, else the chat that ended last.
    private static func router(_ call: LuaCall, _ ccai: CCAI) throws -> CommunicationRouter {
        let value = try call.options(1, "options").value("router")
        if value.isNil {
            let chat = ccai.chatService?.currentChat
            if let chat, chat.isInProgress { return CommunicationRouter(id: chat.id, type: .chat) }
            if let current = ccai.callService?.currentCall, current.isInProgress { return CommunicationRouter(id: current.id, type: .call) }
            guard let chat else {
                throw call.argumentError(1, "options.router", "{ id = ..., type = \"chat\"|\"call\" } expected (there is no current chat or call)")
            }
            return CommunicationRouter(id: chat.id, type: .chat)
        }
        do {
            return try LuaDecoder().decode(CommunicationRouter.self, from: value)
        } catch let error as DecodingError {
            throw call.argumentError(1, "options.router", "{ id = ..., type = \"chat\"|\"call\" } expected: \(SDKBindings.describe(error))")
        }
    }
}
