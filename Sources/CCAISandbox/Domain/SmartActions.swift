import CCAIWire
import Foundation
import Timekeeping

/// Smart actions as the platform runs them (seed 003's `smartActionService`): requested by
/// an agent during a chat or a call, or by the queue before a chat, published to the end
/// user as `smart_action_requested`, answered by the app (`received`, a result, then
/// `finished` or `failed`), and handed back to the agent waiting for them. Final actions
/// take no more changes. A call carries no files: its actions ask for text, a
/// verification or a screen share.
///
/// ```swift
/// let action = try await smartActions.request(in: CommunicationRouter(id: chat.id, type: .chat), endUserID: owner,
///                                             type: .photo, preSession: false, requestedBy: "Ada")
/// let outcome = await smartActions.outcome(of: action, timeout: 60)   // nil: the chat ended
/// ```
struct SmartActions: Sendable {
    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any TimeSource
    /// Agents waiting for the end user's answers.
    let outcomes: OutcomeBoard<SmartAction>

    init(store: SandboxStore, publisher: EventPublisher, clock: any TimeSource) {
        (self.store, self.publisher, self.clock) = (store, publisher, clock)
        outcomes = OutcomeBoard(clock: clock)
    }

    /// The types a call's actions may ask for: a call carries no files.
    static let callTypes: Set<SmartActionType> = [.text, .verification, .screenShare]

    /// Records a smart action for a chat or a call and tells the end user's app.
    func request(in session: CommunicationRouter, endUserID: Int, type: SmartActionType, preSession: Bool, requestedBy: String?)
        async throws -> SmartAction
    {
        if session.type == .call, !Self.callTypes.contains(type) {
            throw HTTPError.badRequest("type: a call carries no files, so its smart actions ask for "
                                       + Self.callTypes.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
                                       + "; '\(type.rawValue)' is for chats")
        }
        let action = try await store.addSmartAction(session: session, type: type, preSession: preSession, requestedBy: requestedBy,
                                                    now: clock.now())
        try await publisher.publish(endUserID: endUserID, event: .smartActionRequested, encoding: action)
        return action
    }

    /// The action once the app finished or failed it; as it stands after `timeout`
    /// seconds; nil when its session ended first.
    func outcome(of action: SmartAction, timeout: TimeInterval) async -> SmartAction? {
        let store = self.store
        let key = OutcomeBoard<SmartAction>.Key(session: action.router, id: action.id)
        if let final = await outcomes.wait(for: key, timeout: timeout, answered: {
            guard let current = try? await store.smartAction(id: action.id, session: action.router), current.status.isFinal
            else { return nil }
            return current
        }) {
            return final
        }
        guard await isInProgress(action.router) else { return nil }
        return try? await store.smartAction(id: action.id, session: action.router)
    }

    private func isInProgress(_ session: CommunicationRouter) async -> Bool {
        switch session.type {
        case .chat: return (try? await store.chatStatus(id: session.id)) != .ended
        case .call: return (try? await store.call(id: session.id))?.isInProgress == true
        }
    }

    /// The files sent for an action (a chat's: a call carries none).
    func media(of action: SmartAction) async throws -> [ChatMedia] {
        guard let chatID = action.chatId else { return [] }
        return try await store.media(ids: action.result?.mediaIds ?? [], chatID: chatID)
    }

    /// The session's actions, oldest first.
    func all(of session: CommunicationRouter) async throws -> [SmartAction] {
        try await store.smartActions(session: session)
    }

    /// The session's action `id`, or a 404.
    func action(_ id: Int, in session: CommunicationRouter) async throws -> SmartAction {
        guard let action = try await store.smartAction(id: id, session: session) else {
            throw HTTPError.notFound("\(session.type.rawValue) \(session.id) has no smart action \(id)")
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
        guard let updated = try await store.addSmartActionResult(id: action.id, session: action.router, result, now: clock.now())
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
        if moved.status.isFinal { await outcomes.resolve(.init(session: moved.router, id: moved.id), with: moved) }
        return moved
    }

    /// The action an upload of `type` answers (`smart_action_id`): it must ask for that
    /// kind of file and not be final.
    func answeredByUpload(_ id: Int, of type: ChatMediaType, inChat chatID: Int) async throws -> SmartAction {
        let action = try await action(id, in: CommunicationRouter(id: chatID, type: .chat))
        let fits: Set<SmartActionType> = type == .photo ? [.photo, .screenshot] : [.video]
        guard fits.contains(action.type) else {
            throw HTTPError.badRequest("smart action \(id) asks for a \(action.type.rawValue), not a \(type == .photo ? "image" : "video")")
        }
        guard !action.status.isFinal else { throw finalError(action) }
        return action
    }

    /// Records an uploaded file as (part of) the action's result.
    func attach(_ media: ChatMedia, to action: SmartAction) async throws {
        _ = try await store.addSmartActionResult(id: action.id, session: action.router, SmartActionResult(mediaIds: [media.id]),
                                                 now: clock.now())
    }

    /// The chat or call ended: agents waiting on its actions get nil.
    func ended(_ session: CommunicationRouter) async {
        await outcomes.ended(session)
    }

    private func move(_ action: SmartAction, to status: SmartActionStatus) async throws -> SmartAction {
        guard let moved = try await store.updateSmartAction(id: action.id, session: action.router, status: status, now: clock.now())
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
