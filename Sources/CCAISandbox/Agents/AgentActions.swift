import CCAIWire
import Foundation

/// Who an agent is to the customer: `agent` or `virtual_agent` (message senders and
/// chat members).
enum AgentKind: String, Sendable {
    case human = "agent"
    case virtual = "virtual_agent"
}

/// What any sandbox agent does to a chat, scripted or not: join it, type and write, end
/// it. Everything is stored and published as events to the chat's end user.
struct AgentActions {
    let sandbox: Sandbox
    let chatID: Int
    let endUserID: Int
    let name: String
    var kind: AgentKind = .human
    /// A post-session virtual agent: it talks on the ended chat, and ending the session
    /// completes the post-session phase.
    var isPostSession = false

    /// Takes the queued chat: assigned (a human), the agent joins, active. False when the
    /// chat is no longer there to take. A post-session virtual agent only joins.
    func join() async throws -> Bool {
        if isPostSession {
            try await publishMember(.joined)
            return true
        }
        switch kind {
        case .human:
            guard try await sandbox.lifecycle.move(chatID, endUserID: endUserID, to: .assigned, agent: name) != nil else { return false }
            try await publishMember(.joined)
            guard try await sandbox.lifecycle.move(chatID, endUserID: endUserID, to: .active, agent: name) != nil else { return false }
        case .virtual:
            guard try await sandbox.lifecycle.takeByVirtualAgent(chatID, endUserID: endUserID, name: name) != nil else { return false }
            try await publishMember(.joined)
        }
        return true
    }

    /// This agent as a chat member in events.
    var member: ChatMember { ChatMember(type: kind.rawValue, name: name) }

    /// `member_event` for this agent (`joined`, `left`).
    func publishMember(_ change: ChatMemberPayload.Change) async throws {
        try await sandbox.publisher.publish(endUserID: endUserID, event: .memberEvent,
                                            encoding: ChatMemberPayload(chatId: chatID, type: change, member: member))
    }

    /// Types, then sends: `typing_event` (typing, then not) around the message.
    func say(_ text: String) async throws {
        try await typing(true)
        defer { Task { try? await typing(false) } }
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chatID, sender: ChatMessageSender(type: kind.rawValue, name: name), type: "text", text: text, event: nil,
            clientMessageID: nil, now: sandbox.clock.now())
        try await sandbox.publisher.messages([message], endUserID: endUserID)
    }

    /// Asks the customer for a smart action and waits up to `timeout` seconds for the
    /// outcome: the action (finished, failed, or as it stands at the timeout) with the
    /// media sent for it; nil when the chat ended first.
    func requestSmartAction(_ type: SmartActionType, timeout: TimeInterval) async throws
        -> (action: SmartAction, media: [ChatMedia])?
    {
        guard try await isChatInProgress() else { throw HTTPError.chatEnded(chatID) }
        let action = try await sandbox.requestSmartAction(chatID: chatID, endUserID: endUserID, type: type, preSession: false,
                                                          requestedBy: name)
        guard let outcome = await sandbox.smartActionOutcome(action, timeout: timeout) else { return nil }
        return (outcome, try await sandbox.store.media(ids: outcome.result?.mediaIds ?? [], chatID: chatID))
    }

    /// Sends a file of one of the 19 agent file types (seed 003) to the customer.
    func sendFile(name: String, mimeType: String, data: Data) async throws -> ChatMessage {
        guard let (type, extensions) = ChatMediaType.agentFileTypes[mimeType.lowercased()] else {
            throw HTTPError.badRequest("mime_type: one of the agent file types expected ("
                                       + ChatMediaType.agentFileTypes.keys.sorted().joined(separator: ", ") + "), got '\(mimeType)'")
        }
        if let problem = FileName.problem(name) { throw HTTPError.badRequest("name: \(problem)") }
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased()
        guard extensions.contains(fileExtension) else {
            throw HTTPError.badRequest("name: a file name ending in ." + extensions.joined(separator: " or .")
                                       + " expected for \(mimeType), got '\(name)'")
        }
        guard !data.isEmpty, data.count <= AttachmentLimits.videoBytes else {
            throw HTTPError(code: data.isEmpty ? .invalidArgument : .tooLarge,
                            message: data.isEmpty ? "data: the file is empty"
                                : "data: files may be at most \(AttachmentLimits.megabytes(AttachmentLimits.videoBytes)), got \(AttachmentLimits.megabytes(data.count))")
        }
        guard try await isChatInProgress() else { throw HTTPError.chatEnded(chatID) }
        let now = sandbox.clock.now()
        let media = try await sandbox.store.addMedia(chatID: chatID, type: type, name: name, mimeType: mimeType.lowercased(),
                                                     data: data, now: now)
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chatID, sender: ChatMessageSender(type: kind.rawValue, name: self.name), type: "media", text: nil, event: nil,
            media: media, clientMessageID: nil, now: now)
        try await sandbox.publisher.messages([message], endUserID: endUserID)
        return message
    }

    /// Whether the chat is still queued or going on.
    func isChatInProgress() async throws -> Bool {
        guard let chat = try await sandbox.store.chat(id: chatID, endUserID: endUserID) else { return false }
        return isPostSession ? chat.postSessionTransferStatus == .ready : chat.isInProgress
    }

    /// Ends the chat as the agent (a post-session virtual agent: completes the
    /// post-session phase and leaves). False when it had already ended.
    func end() async throws -> Bool {
        if isPostSession {
            guard try await sandbox.lifecycle.advancePostSession(chatID, endUserID: endUserID, from: .ready, to: .completed) != nil
            else { return false }
            try await publishMember(.left)
            await sandbox.agentDesk.postSessionEnded(chatID)
            return true
        }
        guard try await sandbox.lifecycle.end(chatID, endUserID: endUserID, by: .agent) != nil else { return false }
        await sandbox.agentDesk.chatEnded(chatID, sandbox: sandbox)
        return true
    }

    private func typing(_ isTyping: Bool) async throws {
        try await sandbox.publisher.publish(endUserID: endUserID, event: .typingEvent,
                                            encoding: ChatTypingPayload(chatId: chatID, typing: isTyping, member: member))
    }
}
