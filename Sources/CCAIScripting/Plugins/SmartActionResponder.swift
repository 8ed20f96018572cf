import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The host's automatic answers to smart actions (docs/plugins.md): when an agent asks
/// for one, or a queue requires one before the session, and a plugin has a handler for its
/// type, the host tells the platform it was received, runs the handler, sends its answer
/// through the SDK and marks the action finished (or failed, for a decline or a failing
/// handler). Types no plugin handles are left to the script (`ccai.smart_action`).
struct SmartActionResponder: PluginResponder {
    let sdk: CCAI
    let plugins: PluginHost
    let logger: ScriptLogger
    let failures: PluginFailures?

    /// Answers the in-session requests of the SDK's chats and calls for as long as `state` lives.
    func answerRequests(while state: LuaState) {
        guard let stream = sdk.smartActionService?.requests() else { return }
        Task { [weak state] in
            for await action in stream where !action.preSession {
                guard state != nil else { return }
                Task { await answer(action) }
            }
        }
    }

    /// Answers a pending chat's pre-session smart actions before it is enqueued.
    func answerPreSession(_ chat: ChatResponse) async {
        guard let service = sdk.smartActionService,
            let actions = try? await service.getSmartActions(router: CommunicationRouter(id: chat.id, type: .chat))
        else { return }
        for action in actions where action.preSession && !action.status.isFinal {
            if !(await answer(action)) {
                logger.log(LogRecord(level: .warn, message: "no plugin answers the pre-session smart action; the chat is enqueued without it",
                                     fields: [("chat_id", .integer(Int64(chat.id))), ("smart_action_id", .integer(Int64(action.id))),
                                              ("type", .string(action.type.rawValue))]))
            }
        }
    }

    /// Answers one action through the plugins; false when no plugin handles its type.
    @discardableResult
    func answer(_ action: SmartAction) async -> Bool {
        guard let service = sdk.smartActionService, await plugins.handles(.smartActions, key: action.type.rawValue) else { return false }
        let router = action.router
        do {
            try await service.notifySmartActionReceived(router: router, smartActionId: action.id)
            let context = LuaValue.table(LuaTable(fields: [.string(Self.sessionField(action)): .integer(Int64(router.id)),
                                                              "pre_session": .boolean(action.preSession)]))
            switch await plugins.answer(.smartActions, key: action.type.rawValue, argument: (try? LuaEncoder().encode(action)) ?? .nil,
                                        context: context,
                                        reporting: failures) {
            case .unhandled:
                return false
            case .failed(let plugin, let message):
                try await fail(action, reason: "plugin '\(plugin)' failed: \(message)", service: service)
            case .answered(let value, let plugin, let folder):
                let answer: SmartActionAnswer
                do {
                    answer = try SmartActionAnswer(value, for: action, folder: folder)
                } catch let error as OutgoingContent.FieldError {
                    await plugins.recordError(plugin: plugin, hook: "smart_actions", reporting: failures, "smart_actions.\(action.type.rawValue): \(error.field): \(error.message)")
                    try await fail(action, reason: "plugin '\(plugin)' gave no usable answer", service: service)
                    return true
                }
                try await deliver(answer, for: action, service: service)
            }
        } catch {
            logger.log(LogRecord(level: .error, message: "answering smart action \(action.id) failed: \(error)",
                                 fields: [(Self.sessionField(action), .integer(Int64(router.id))), ("type", .string(action.type.rawValue))]))
        }
        return true
    }

    /// Where the action was asked, as a handler's `ctx` and the log name it: `chat_id` or `call_id`.
    private static func sessionField(_ action: SmartAction) -> String {
        action.router.type == .chat ? "chat_id" : "call_id"
    }

    private func deliver(_ answer: SmartActionAnswer, for action: SmartAction, service: SmartActionService) async throws {
        switch answer {
        case .decline(let reason):
            try await fail(action, reason: reason, service: service)
        case .result(let result):
            try await service.sendSmartActionResult(router: action.router, smartActionId: action.id, result: result)
            try await service.updateSmartActionStatus(router: action.router, smartActionId: action.id, status: .finished)
        case .media(let content):
            guard let chat = sdk.chatService else {
                throw CCAIError(code: .notInitialized, message: "chat is not initialized")
            }
            do {
                _ = try await content.send(with: chat)
            } catch let error as any SDKError where error.code == .tooLarge || error.code == .invalidArgument {
                try await fail(action, reason: error.message, service: service)
                throw error
            }
            try await service.updateSmartActionStatus(router: action.router, smartActionId: action.id, status: .finished)
        }
    }

    private func fail(_ action: SmartAction, reason: String, service: SmartActionService) async throws {
        try await service.sendSmartActionResult(router: action.router, smartActionId: action.id,
                                                result: SmartActionResult(declineReason: reason))
        try await service.updateSmartActionStatus(router: action.router, smartActionId: action.id, status: .failed)
    }
}
