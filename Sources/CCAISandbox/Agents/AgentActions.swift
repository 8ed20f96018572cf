import CCAIWire
import Foundation

/// Who an agent is to the customer: `agent` or `virtual_agent` (message senders and
/// chat members).
enum AgentKind: Sendable {
    case human
    case virtual

    /// How messages and member lists name it.
    var senderType: ChatSenderType { self == .human ? .agent : .virtualAgent }
}

/// What any sandbox agent does to a chat, scripted or not: join it, type and write, ask
/// for smart actions, forms, files and screen shares, transfer and end it. Everything
/// goes through the sandbox's domain types (``AgentEnvironment``), stored and published
/// as events to the chat's end user.
struct AgentActions: Sendable {
    let environment: AgentEnvironment
    /// The desk that started the agent: it hears when the agent ends or transfers the chat.
    let desk: AgentDesk
    let chatID: Int
    let endUserID: Int
    let name: String
    var kind: AgentKind = .human

    /// The chat as a session of smart actions.
    private var session: CommunicationRouter { CommunicationRouter(id: chatID, type: .chat) }
    /// A post-session virtual agent: it talks on the ended chat, and ending the session
    /// completes the post-session phase.
    var isPostSession = false

    /// Takes the queued chat: assigned (a human), the agent joins, active. False when the
    /// chat is no longer there to take. A post-session virtual agent only joins.
    func join() async throws -> Bool {
        let lifecycle = environment.lifecycle
        if isPostSession {
            try await publishMember(.joined)
            return true
        }
        switch kind {
        case .human:
            guard try await lifecycle.move(chatID, endUserID: endUserID, .assign, agent: name) != nil else { return false }
            try await publishMember(.joined)
            guard try await lifecycle.move(chatID, endUserID: endUserID, .activate, agent: name) != nil else { return false }
        case .virtual:
            guard try await lifecycle.takeByVirtualAgent(chatID, endUserID: endUserID, name: name) != nil else { return false }
            try await publishMember(.joined)
        }
        return true
    }

    /// This agent as a chat member in events.
    var member: ChatMember { ChatMember(type: kind.senderType.rawValue, name: name) }

    /// This agent as the sender of messages.
    var sender: ChatMessageSender { ChatMessageSender(type: kind.senderType, name: name) }

    /// `member_event` for this agent (`joined`, `left`).
    func publishMember(_ change: ChatMemberPayload.Change) async throws {
        try await environment.publisher.publish(endUserID: endUserID, event: .memberEvent,
                                                encoding: ChatMemberPayload(chatId: chatID, type: change, member: member))
    }

    /// Types, then sends: `typing_event` (typing, then not) around the message.
    func say(_ text: String) async throws {
        try await setTyping(true)
        defer { Task { try? await setTyping(false) } }
        try await environment.conversation.post(.init(sender: sender, type: .text, text: text), in: chatID, endUserID: endUserID)
    }

    /// Asks the customer for a smart action and waits up to `timeout` seconds for the
    /// outcome: the action (finished, failed, or as it stands at the timeout) with the
    /// media sent for it; nil when the chat ended first.
    func requestSmartAction(_ type: SmartActionType, timeout: TimeInterval) async throws
        -> (action: SmartAction, media: [ChatMedia])?
    {
        try await requireChatInProgress()
        let smartActions = environment.smartActions
        let action = try await smartActions.request(in: session, endUserID: endUserID, type: type, preSession: false,
                                                    requestedBy: name)
        guard let outcome = await smartActions.outcome(of: action, timeout: timeout) else { return nil }
        return (outcome, try await smartActions.media(of: outcome))
    }

    /// Asks the customer for a smart action without waiting for the outcome (the console's:
    /// the page shows the action's status as it changes).
    func askSmartAction(_ type: SmartActionType) async throws -> SmartAction {
        try await requireChatInProgress()
        return try await environment.smartActions.request(in: session, endUserID: endUserID, type: type, preSession: false,
                                                          requestedBy: name)
    }

    /// The chat's latest messages (at most `count`, ``historyLimit`` by default, in order),
    /// as agents see them.
    func history(of chat: ChatResponse, last count: Int = historyLimit) async throws -> [ChatMessage] {
        try await environment.conversation.agentView(of: chat, .last(count))
    }

    /// How many messages a script's `session.messages` holds at most (a state has 16 MB).
    static let historyLimit = 500

    /// The chat's smart actions so far.
    func smartActions() async throws -> [SmartAction] {
        try await environment.smartActions.all(of: session)
    }

    /// Sends a form and waits up to `timeout` seconds for the end user's answers; nil on
    /// timeout or when the chat ends.
    func sendForm(_ form: Forms.FormToSend, timeout: TimeInterval) async throws -> FormOutcome? {
        try await requireChatInProgress()
        return try await environment.forms.send(form, in: chatID, endUserID: endUserID, from: sender, timeout: timeout)
    }

    /// Sends a form without waiting for the answers (the console's: they come back as the
    /// form's status and the customer's messages).
    func postForm(_ form: Forms.FormToSend) async throws {
        try await requireChatInProgress()
        try await environment.forms.post(form, in: chatID, endUserID: endUserID, from: sender)
    }

    /// Asks the customer to share their screen (``ScreenShares/request(in:endUserID:by:remoteControl:timeout:)``).
    func requestScreenShare(remoteControl: Bool, timeout: TimeInterval) async throws -> ScreenShareResponse? {
        try await environment.screenShares.request(in: chatID, endUserID: endUserID, by: sender, remoteControl: remoteControl,
                                                   timeout: timeout)
    }

    /// Sends a file of one of the 19 agent file types (seed 003) to the customer.
    func sendFile(name: String, mimeType: String, data: Data) async throws -> ChatMessage {
        let type = try ChatFiles.agentFileType(name: name, mimeType: mimeType, size: data.count)
        try await requireChatInProgress()
        return try await environment.files.send(type, name: name, mimeType: mimeType, data: data, in: chatID, endUserID: endUserID,
                                                from: sender)
    }

    /// Moves the chat to another queue (``AgentDesk/transfer(_:toMenu:)``).
    func transfer(toMenu menuID: Int) async throws -> ChatResponse {
        try await desk.transfer(self, toMenu: menuID)
    }

    /// Whether the chat is still queued or going on.
    func isChatInProgress() async throws -> Bool {
        guard let chat = try await environment.chats.chat(chatID, endUserID: endUserID) else { return false }
        return isPostSession ? chat.postSessionTransferStatus == .ready : chat.isInProgress
    }

    /// Ends the chat as the agent (a post-session virtual agent: completes the
    /// post-session phase and leaves). False when it had already ended.
    func end() async throws -> Bool {
        let lifecycle = environment.lifecycle
        if isPostSession {
            guard try await lifecycle.advancePostSession(chatID, endUserID: endUserID, from: .ready, to: .completed) != nil
            else { return false }
            try await publishMember(.left)
            await desk.postSessionEnded(chatID)
            return true
        }
        return try await lifecycle.end(chatID, endUserID: endUserID, by: .agent) != nil
    }

    private func requireChatInProgress() async throws {
        guard try await isChatInProgress() else { throw HTTPError.chatEnded(chatID) }
    }

    /// `typing_event`: the agent types, or stops.
    func setTyping(_ isTyping: Bool) async throws {
        try await environment.publisher.publish(endUserID: endUserID, event: .typingEvent,
                                                encoding: ChatTypingPayload(chatId: chatID, typing: isTyping, member: member))
    }
}
