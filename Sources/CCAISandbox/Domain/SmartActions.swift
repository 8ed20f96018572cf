import CCAIWire
import Foundation
import Timekeeping

/// Smart actions as the platform runs them (seed 003's `smartActionService`): requested by
/// an agent or by the queue before the session, published to the end user as
/// `smart_action_requested`, answered by the app (`received`, a result, then `finished`
/// or `failed`), and handed back to the agent waiting for them. Final actions take no
/// more changes.
///
/// ```swift
/// let action = try await smartActions.request(chatID: chat.id, endUserID: owner, type: .photo, preSession: false,
///                                             requestedBy: "Ada")
/// let outcome = await smartActions.outcome(of: action, timeout: 60)   // nil: the chat ended
/// ```
struct SmartActions: Sendable {
    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any Clock
    /// Agents waiting for the end user's answers.
    let outcomes: OutcomeBoard<SmartAction>

    init(store: SandboxStore, publisher: EventPublisher, clock: any Clock) {
        (self.store, self.publisher, self.clock) = (store, publisher, clock)
        outcomes = OutcomeBoard(clock: clock)
    }

    /// Records a smart action for a chat and tells the end user's app.
    func request(chatID: Int, endUserID: Int, type: SmartActionType, preSession: Bool, requestedBy: String?) async throws
        -> SmartAction
    {
        let action = try await store.addSmartAction(chatID: chatID, type: type, preSession: preSession, requestedBy: requestedBy,
                                                    now: clock.now())
        try await publisher.publish(endUserID: endUserID, event: .smartActionRequested, encoding: action)
        return action
    }

    /// The action once the app finished or failed it; as it stands after `timeout`
    /// seconds; nil when the chat ended first.
    func outcome(of action: SmartAction, timeout: TimeInterval) async -> SmartAction? {
        let store = self.store
        let key = OutcomeBoard<SmartAction>.Key(chatID: action.chatId, id: action.id)
        if let final = await outcomes.wait(for: key, timeout: timeout, answered: {
            guard let current = try? await store.smartAction(id: action.id, chatID: action.chatId), current.status.isFinal
            else { return nil }
            return current
        }) {
            return final
        }
        guard (try? await store.chatStatus(id: action.chatId)) != .ended else { return nil }
        return try? await store.smartAction(id: action.id, chatID: action.chatId)
    }

    /// The files sent for an action.
    func media(of action: SmartAction) async throws -> [ChatMedia] {
        try await store.media(ids: action.result?.mediaIds ?? [], chatID: action.chatId)
    }

    /// The chat's actions, oldest first.
    func all(ofChat chatID: Int) async throws -> [SmartAction] {
        try await store.smartActions(chatID: chatID)
    }

    /// The chat's action `id`, or a 404.
    func action(_ id: Int, inChat chatID: Int) async throws -> SmartAction {
        guard let action = try await store.smartAction(id: id, chatID: chatID) else {
            throw HTTPError.notFound("chat \(chatID) has no smart action \(id)")
        }
        return action
    }

    /// The app got the action.
    func received(_ action: SmartAction) async throws -> SmartAction {
        try await move(action, to: .received)
    }

    /// Adds the app's result, which must fit the action's type (media come as uploads).
    func addResult(_ result: SmartActionResult, to action: SmartAction) async throws -> SmartAction {
        if let problem = FieldLimits.problem("text", result.text) ?? FieldLimits.problem("decline_reason", result.declineReason) {
            throw HTTPError.badRequest(problem)
        }
        try check(result, for: action)
        guard let updated = try await store.addSmartActionResult(id: action.id, chatID: action.chatId, result, now: clock.now())
        else { throw finalError(action) }
        return updated
    }

    /// Moves the action to `status`: `finished` needs the result its type asks for,
    /// `failed` is always possible; whoever waits for a final action gets it.
    func setStatus(_ status: SmartActionStatus, of action: SmartAction) async throws -> SmartAction {
        guard status != .requested else {
            throw HTTPError.badRequest("status: 'received', 'finished' or 'failed' expected (an action cannot go back to 'requested')")
        }
        if status == .finished, let missing = missingResult(action) {
            throw HTTPError.conflict("smart action \(action.id) (\(action.type.rawValue)) cannot finish without \(missing)")
        }
        let moved = try await move(action, to: status)
        if moved.status.isFinal { await outcomes.resolve(.init(chatID: moved.chatId, id: moved.id), with: moved) }
        return moved
    }

    /// The action an upload of `type` answers (`smart_action_id`): it must ask for that
    /// kind of file and not be final.
    func answeredByUpload(_ id: Int, of type: ChatMediaType, inChat chatID: Int) async throws -> SmartAction {
        let action = try await action(id, inChat: chatID)
        let fits: Set<SmartActionType> = type == .photo ? [.photo, .screenshot] : [.video]
        guard fits.contains(action.type) else {
            throw HTTPError.badRequest("smart action \(id) asks for a \(action.type.rawValue), not a \(type == .photo ? "image" : "video")")
        }
        guard !action.status.isFinal else { throw finalError(action) }
        return action
    }

    /// Records an uploaded file as (part of) the action's result.
    func attach(_ media: ChatMedia, to action: SmartAction) async throws {
        _ = try await store.addSmartActionResult(id: action.id, chatID: action.chatId, SmartActionResult(mediaIds: [media.id]),
                                                 now: clock.now())
    }

    /// The chat ended: agents waiting on its actions get nil.
    func chatEnded(_ chatID: Int) async {
        await outcomes.chatEnded(chatID)
    }

    private func move(_ action: SmartAction, to status: SmartActionStatus) async throws -> SmartAction {
        guard let moved = try await store.updateSmartAction(id: action.id, chatID: action.chatId, status: status, now: clock.now())
        else { throw finalError(action) }
        return moved
    }

    private func finalError(_ action: SmartAction) -> HTTPError {
        HTTPError.conflict("smart action \(action.id) is \(action.status.rawValue) already")
    }

    /// A result must fit the action's type; media come as uploads.
    private func check(_ result: SmartActionResult, for action: SmartAction) throws {
        if result.mediaIds != nil {
            throw HTTPError.badRequest("media_ids: send photos and videos as uploads naming the smart action (POST /chats/{id}/media?smart_action_id=\(action.id))")
        }
        let fields: [(String, Bool, SmartActionType)] = [("text", result.text != nil, .text),
                                                         ("verified", result.verified != nil, .verification),
                                                         ("screen_share", result.screenShare != nil, .screenShare)]
        for (field, present, type) in fields where present && action.type != type {
            throw HTTPError.badRequest("\(field): only a \(type.rawValue) smart action takes it; smart action \(action.id) is \(action.type.rawValue)")
        }
        if result.text == nil, result.verified == nil, result.screenShare == nil, result.declineReason == nil {
            throw HTTPError.badRequest("a result needs text, verified, screen_share or decline_reason")
        }
    }

    /// What a `finished` action of its type must have received, if it has not.
    private func missingResult(_ action: SmartAction) -> String? {
        let result = action.result
        switch action.type {
        case .text: return result?.text == nil ? "its text" : nil
        case .verification: return result?.verified == nil ? "its verification outcome (verified)" : nil
        case .photo, .screenshot: return (result?.mediaIds ?? []).isEmpty ? "an image sent for it" : nil
        case .video: return (result?.mediaIds ?? []).isEmpty ? "a video sent for it" : nil
        case .screenShare: return result?.screenShare == nil ? "screen_share" : nil
        case .unknown: return nil
        }
    }
}
