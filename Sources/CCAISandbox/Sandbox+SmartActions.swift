import CCAIWire
import Foundation

/// Smart actions as the platform runs them: requested (by an agent, or by the queue
/// before the session), published to the end user as `smart_action_requested`, answered
/// by the app, and handed back to the agent waiting for them.
extension Sandbox {
    /// Records a smart action for a chat and tells the end user's app.
    func requestSmartAction(chatID: Int, endUserID: Int, type: SmartActionType, preSession: Bool, requestedBy: String?)
        async throws -> SmartAction
    {
        let action = try await store.addSmartAction(chatID: chatID, type: type, preSession: preSession, requestedBy: requestedBy,
                                                    now: clock.now())
        try await publisher.publish(endUserID: endUserID, event: .smartActionRequested, encoding: action)
        return action
    }

    /// The action once the app finished or failed it; as it stands after `timeout`
    /// seconds; nil when the chat ended first.
    func smartActionOutcome(_ action: SmartAction, timeout: TimeInterval) async -> SmartAction? {
        let store = self.store
        let key = OutcomeBoard<SmartAction>.Key(chatID: action.chatId, id: action.id)
        if let final = await smartActionOutcomes.wait(for: key, timeout: timeout, answered: {
            guard let current = try? await store.smartAction(id: action.id, chatID: action.chatId), current.status.isFinal
            else { return nil }
            return current
        }) {
            return final
        }
        guard (try? await store.chatStatus(id: action.chatId)) != .ended else { return nil }
        return try? await store.smartAction(id: action.id, chatID: action.chatId)
    }

    /// An action reached `finished` or `failed`: whoever waits for it gets it.
    func smartActionSettled(_ action: SmartAction) async {
        await smartActionOutcomes.resolve(.init(chatID: action.chatId, id: action.id), with: action)
    }
}
