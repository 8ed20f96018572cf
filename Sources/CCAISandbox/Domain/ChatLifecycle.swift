import CCAIWire
import Foundation
import Timekeeping

/// The transitions of a chat's life, said once for the routes, every kind of agent and the
/// sandbox's own chores: each changes the stored chat only from the states it applies
/// to, and publishes the changed chat to its end user as a `chat_received`. A transition
/// that does not apply (the chat has ended already, say) is nil, and the caller says why.
/// A chat that joins its queue or ends is also a ``SessionChange`` for the agent desk, told
/// before the transition returns.
///
/// ```swift
/// guard let ended = try await lifecycle.end(chat.id, endUserID: owner, by: .endUser) else {
///     throw HTTPError.conflict("chat \(chat.id) has already ended")
/// }
/// ```
struct ChatLifecycle: Sendable {
    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any TimeSource
    /// Where queued and ended chats are said (the agent desk listens).
    let changes: SessionChanges

    /// Creates an end user's chat unless one is in progress (the store decides both in one
    /// transaction, with whether the company's server started it); a created chat is
    /// published.
    func create(endUserID: Int, menuID: Int, lang: String, status: ChatStatus, redaction: Bool, screenShareable: Bool,
                session: ChatSessionData, postSession: PostSessionSettings, startedByServer: Bool, now: Date) async throws
        -> SandboxStore.ChatCreation
    {
        let creation = try await store.createChat(endUserID: endUserID, menuID: menuID, lang: lang, status: status,
                                                  redaction: redaction, screenShareable: screenShareable, session: session,
                                                  postSession: postSession, startedByServer: startedByServer, now: now)
        if case .created(let chat) = creation {
            try await publisher.chat(chat, endUserID: endUserID)
            if chat.status == .queued { await changes.publish(.queued(chat, endUserID: endUserID)) }
        }
        return creation
    }

    /// Ends a chat in progress (`ended_by` is `ender`).
    func end(_ chatID: Int, endUserID: Int, by ender: ChatEndedBy) async throws -> ChatResponse? {
        guard let ended = try await published(try await store.endChat(id: chatID, endUserID: endUserID, by: ender.rawValue,
                                                                       now: clock.now()), endUserID)
        else { return nil }
        await changes.publish(.ended(ended))
        return ended
    }

    /// A chat an earlier run left in progress goes back to its queue, without the agent
    /// that went with that run (``SandboxStore/requeueChat(id:)``).
    func requeue(_ chatID: Int, endUserID: Int) async throws -> (chat: ChatResponse, toHuman: Bool)? {
        guard let requeued = try await store.requeueChat(id: chatID) else { return nil }
        try await publisher.chat(requeued.chat, endUserID: endUserID)
        return requeued
    }

    /// A `pending` chat (its pre-session smart actions requested) joins its queue.
    func enqueue(_ chatID: Int, endUserID: Int) async throws -> ChatResponse? {
        guard let queued = try await published(try await store.enqueuePendingChat(id: chatID), endUserID) else { return nil }
        await changes.publish(.queued(queued, endUserID: endUserID))
        return queued
    }

    /// A human agent's step in taking a chat in progress: ``ChatTransition/assign``, then
    /// ``ChatTransition/activate``.
    func move(_ chatID: Int, endUserID: Int, _ transition: ChatTransition, agent: String) async throws -> ChatResponse? {
        try await published(try await store.updateChat(id: chatID, transition, agent: agent, now: clock.now()), endUserID)
    }

    /// A virtual agent takes a queued chat no human has: it is `active` at once.
    func takeByVirtualAgent(_ chatID: Int, endUserID: Int, name: String) async throws -> ChatResponse? {
        try await published(try await store.assignVirtualAgent(id: chatID, name: name, now: clock.now()), endUserID)
    }

    /// A virtual agent's chat starts its escalation to a human: queued again, with the
    /// option it was escalated by, if any.
    func startEscalation(_ chatID: Int, endUserID: Int, option: VirtualAgentConfiguration.EscalationOption?) async throws
        -> ChatResponse?
    {
        try await published(try await store.startEscalation(id: chatID, option: option.map { ($0.id, $0.deflectionChannel) }),
                            endUserID)
    }

    /// Commits an option to an escalation under way.
    func updateEscalation(_ chatID: Int, endUserID: Int, option: VirtualAgentConfiguration.EscalationOption) async throws
        -> ChatResponse?
    {
        try await published(try await store.updateEscalation(id: chatID, option: (option.id, option.deflectionChannel)), endUserID)
    }

    /// A cold transfer: the chat is queued on another queue, with that queue's redaction
    /// and post-session settings, and no agent.
    func transfer(_ chatID: Int, endUserID: Int, to menuID: Int, redaction: Bool, postSession: PostSessionSettings) async throws
        -> ChatResponse?
    {
        try await published(try await store.transferChat(id: chatID, toMenu: menuID, redaction: redaction, postSession: postSession),
                            endUserID)
    }

    /// Moves an ended chat's post-session phase from `from` (nil: not started) to `to`.
    func advancePostSession(_ chatID: Int, endUserID: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus)
        async throws -> ChatResponse?
    {
        try await published(try await store.advancePostSession(chatID: chatID, from: from, to: to), endUserID)
    }

    /// The post-session flow the hierarchy chooses for a chat, if any.
    func postSessionFlow(of chat: ChatResponse) async throws -> PostSessionFlow? {
        try await store.postSessionSettings(.chats, id: chat.id).flow(communicationId: chat.id, communicationType: .chats)
    }

    /// Whether the end user may write in the chat: while it is in progress, and on the
    /// ended chat while its post-session virtual agent talks.
    func acceptsMessages(_ chat: ChatResponse) async throws -> Bool {
        if chat.isInProgress { return true }
        guard chat.postSessionTransferStatus == .ready else { return false }
        return try await postSessionFlow(of: chat)?.type == .virtualAgent
    }

    private func published(_ chat: ChatResponse?, _ endUserID: Int) async throws -> ChatResponse? {
        if let chat { try await publisher.chat(chat, endUserID: endUserID) }
        return chat
    }
}
