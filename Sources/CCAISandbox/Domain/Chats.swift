import CCAIWire
import Foundation
import Timekeeping

/// An end user's chats outside their lifecycle's transitions: reading them, the messages
/// the end user writes, and what the app sets on a chat in progress (typing, a preview
/// of the message being typed, custom chat events).
///
/// ```swift
/// let current = try await chats.current(endUserID: owner)   // or a 404
/// let (message, isNew) = try await chats.receive(body, in: current, from: session)
/// ```
struct Chats: Sendable {
    let store: SandboxStore
    let lifecycle: ChatLifecycle
    let conversation: Conversation
    let queues: Queues
    let clock: any TimeSource

    /// The end user's chat in progress, or a 404.
    func current(endUserID: Int) async throws -> ChatResponse {
        guard let chat = try await store.currentChat(endUserID: endUserID) else { throw HTTPError.notFound("no chat in progress") }
        return chat
    }

    /// The end user's chat `id`, if it is theirs.
    func chat(_ id: Int, endUserID: Int) async throws -> ChatResponse? {
        try await store.chat(id: id, endUserID: endUserID)
    }

    /// A page (from 1) of the end user's ended chats, newest first, with their messages.
    func previous(endUserID: Int, page: Int, perPage: Int) async throws -> PreviousChatsResponse {
        let (chats, pages) = try await store.previousChats(endUserID: endUserID, page: page, perPage: perPage)
        var messages: [ChatMessage] = []
        for chat in chats { messages += try await conversation.messages(of: chat.id) }
        return PreviousChatsResponse(chats: chats, messages: messages, currentPage: page, totalPages: pages)
    }

    /// The end user's message in a chat that takes messages (``ChatLifecycle/acceptsMessages(_:)``),
    /// stored once by its client id; `isNew` is false for a client id sent before.
    func receive(_ message: SendMessageRequest, in chat: ChatResponse, from caller: Caller) async throws
        -> (message: ChatMessage, isNew: Bool)
    {
        guard !message.text.isEmpty else { throw HTTPError.badRequest("the field 'text' must not be empty") }
        if let problem = AttachmentLimits.textProblem(message.text) { throw HTTPError(code: .tooLarge, message: "text: \(problem)") }
        if let problem = FieldLimits.problem("text", message.text) { throw HTTPError(code: .tooLarge, message: problem) }
        guard !message.clientMessageId.isEmpty else { throw HTTPError.badRequest("the field 'client_message_id' must not be empty") }
        if let problem = FieldLimits.problem("client_message_id", message.clientMessageId, limit: FieldLimits.clientMessageIDBytes) {
            throw HTTPError.badRequest(problem)
        }
        guard !message.clientMessageId.utf8.contains(0) else {
            throw HTTPError.badRequest("the field 'client_message_id' must not contain NUL")
        }
        guard try await lifecycle.acceptsMessages(chat) else { throw HTTPError.chatEnded(chat.id) }
        return try await conversation.postForAgents(
            .init(sender: ChatMessageSender(type: .endUser, name: caller.endUser.name), type: .text, text: message.text,
                  clientMessageID: message.clientMessageId),
            in: chat, endUserID: try caller.endUserID())
    }

    /// Whether the end user is typing in a chat in progress.
    func setTyping(_ typing: Bool, in chat: ChatResponse) async throws {
        try chat.requireInProgress()
        try await store.setTyping(chatID: chat.id, typing)
    }

    /// A preview of the message the end user is typing (redacted when the queue redacts);
    /// a preview older than the one kept is not accepted. Previews are for agents: while a
    /// virtual agent has the chat they are refused (seed 001: "only works when Task
    /// virtual agent is not active").
    func setPreview(_ preview: MessagePreviewRequest, in chat: ChatResponse) async throws -> MessagePreview {
        try chat.requireInProgress()
        if chat.status == .active, chat.agent == nil, let assistant = chat.virtualAgent {
            throw HTTPError.conflict("message previews are off while the virtual agent \(assistant.name) has the chat "
                                     + "(they work once a human agent has it: escalate first)")
        }
        if let problem = FieldLimits.problem("text", preview.text) { throw HTTPError.badRequest(problem) }
        let kept = try await store.setPreview(chatID: chat.id, text: chat.agentView(of: preview.text), timestamp: preview.timestamp)
        return try await self.preview(of: chat.id, accepted: kept)
    }

    /// What agents see of the end user's typing: the latest preview and the typing flag;
    /// `accepted` says whether the preview just sent was kept.
    func preview(of chatID: Int, accepted: Bool? = nil) async throws -> MessagePreview {
        let stored = try await store.preview(chatID: chatID)
        return MessagePreview(text: stored?.text, timestamp: stored?.timestamp, accepted: accepted,
                              typing: try await store.isTyping(chatID: chatID))
    }

    /// A custom event the app records in a chat in progress.
    func addEvent(_ event: ChatEvent, in chat: ChatResponse) async throws -> StoredChatEvent {
        guard !event.name.isEmpty else { throw HTTPError.badRequest("the field 'name' must not be empty") }
        let payloadSize = try JSONValue.object(event.payload ?? [:]).jsonText().utf8.count
        if let problem = FieldLimits.problem("name", event.name, limit: FieldLimits.chatEventNameBytes)
            ?? FieldLimits.problem("payload", size: payloadSize, limit: FieldLimits.chatEventPayloadBytes)
        {
            throw HTTPError.badRequest(problem)
        }
        try chat.requireInProgress()
        return try await store.addChatEvent(chatID: chat.id, name: event.name, payload: event.payload ?? [:], now: clock.now())
    }

    /// The escalation option the end user picked, as the chat's virtual agent offers it
    /// (a deflection channel may be named only where the option has none of its own).
    func escalationOption(_ picked: ChatEscalationOption, for chat: ChatResponse) throws
        -> VirtualAgentConfiguration.EscalationOption
    {
        let offered = queues.virtualAgent(forMenu: chat.menuId)?.configuration.escalationOptions ?? []
        guard var option = offered.first(where: { $0.id == picked.escalationId }) else {
            let ids = offered.map { String($0.id) }
            throw HTTPError.badRequest("queue \(chat.menuId) offers no escalation option \(picked.escalationId)"
                                       + (ids.isEmpty ? "" : " (it offers \(ids.joined(separator: ", ")))"))
        }
        if let channel = picked.deflectionChannel {
            guard option.deflectionChannel == nil || option.deflectionChannel == channel else {
                throw HTTPError.badRequest("escalation option \(option.id) deflects to \(option.deflectionChannel ?? "chat"), not \(channel)")
            }
            option.deflectionChannel = channel
        }
        return option
    }

    /// A cold transfer of a chat in progress to another queue with a chat channel: it is
    /// queued there with that queue's redaction and post-session settings, and no agent.
    /// The chat before and after.
    func transfer(_ chatID: Int, endUserID: Int, toMenu menuID: Int) async throws -> (from: ChatResponse, queued: ChatResponse) {
        guard let menu = queues.configuration.allMenus.first(where: { $0.id == menuID }) else {
            throw HTTPError.badRequest("there is no queue menu \(menuID)")
        }
        guard let chatChannel = menu.channels?.chat else { throw HTTPError.badRequest("queue \(menuID) has no chat channel") }
        guard let current = try await chat(chatID, endUserID: endUserID), current.isInProgress else {
            throw HTTPError.chatEnded(chatID)
        }
        guard current.menuId != menuID else { throw HTTPError.badRequest("chat \(chatID) is already on queue \(menuID)") }
        guard let queued = try await lifecycle.transfer(chatID, endUserID: endUserID, to: menuID,
                                                        redaction: chatChannel.redaction ?? false,
                                                        postSession: queues.configuration.postSessionSettings(forMenu: menuID))
        else { throw HTTPError.chatEnded(chatID) }
        return (current, queued)
    }

    /// The chats in progress whose end user has written nothing since `moment` (counting
    /// from the chat's start), with their end users.
    func idle(since moment: Date) async throws -> [(id: Int, endUserID: Int)] {
        try await store.chatsIdle(since: moment)
    }

    /// Every chat in progress, with its end user.
    func inProgress() async throws -> [(id: Int, endUserID: Int)] {
        try await store.chatsInProgress()
    }

    /// The `limit` newest chats in progress that an agent or a virtual agent has, newest first,
    /// with their end users.
    func latestWithAnAgent(limit: Int) async throws -> [(chat: ChatResponse, endUserID: Int)] {
        try await store.latestChatsWithAnAgent(limit: limit)
    }

    /// The chats queued on `menus` and waiting for a human agent, oldest first.
    func waiting(onMenus menus: [Int]) async throws -> [(chat: ChatResponse, endUserID: Int)] {
        try await store.queuedChats(menus: menus)
    }

    /// The end user of chat `id`; nil for an unknown chat.
    func owner(of id: Int) async throws -> Int? {
        try await store.chatOwner(id: id)
    }

    /// What chat `id`'s session carries for its agents (empty for an unknown chat).
    func sessionData(_ id: Int) async throws -> ChatSessionData {
        try await store.sessionData(chatID: id) ?? ChatSessionData()
    }
}
