import CCAIWire
import Foundation

/// Screen share sessions as the platform runs them (seed 002): the app creates a session
/// (a code), the agent joins with it (`authorizing`), the end user accepts (`active`) or
/// declines, either side ends it; remote control needs the end user's consent too.
extension Sandbox {
    /// Publishes `screen_share_state` and wakes the agents waiting on the session.
    func screenShareChanged(_ session: ScreenShareResponse, endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .screenShareState,
                          data: ["session_id": .integer(Int64(session.id)), "chat_id": .integer(Int64(session.communicationId)),
                                 "state": .string(session.state.rawValue)])
        await screenShareOutcomes.resolve(.init(chatID: session.communicationId, id: session.id), with: session)
    }

    /// The chat's agent joins a session with its code: `authorizing`; an end user who
    /// started the share is asked to start it (`screen_share_request` `session`).
    func joinScreenShare(_ session: ScreenShareResponse, agent: String, endUserID: Int) async throws -> ScreenShareResponse? {
        guard let joined = try await store.moveScreenShare(id: session.id, from: [.pending], to: .authorizing, agent: agent) else {
            return nil
        }
        try await screenShareChanged(joined, endUserID: endUserID)
        if joined.initiatedFrom == .endUser {
            try await publish(endUserID: endUserID, event: .screenShareRequest,
                              data: ["session_id": .integer(Int64(joined.id)), "type": .string(ScreenShareRequestType.session.rawValue)])
        }
        return joined
    }

    /// `agent.request_screen_share{ remote_control, timeout }`: asks in the chat, joins the
    /// session whose code the app sends back in the chat, waits for the end user to start it and, when asked, to
    /// allow remote control. The session as it stands at the end; nil when no session came,
    /// at once when the app started the chat unable to share.
    func requestScreenShare(_ actions: AgentActions, remoteControl: Bool, timeout: TimeInterval) async throws -> ScreenShareResponse? {
        guard let chat = try await store.chat(id: actions.chatID, endUserID: actions.endUserID), chat.isInProgress else {
            throw HTTPError.chatEnded(actions.chatID)
        }
        guard chat.isSupportingScreenShare else {
            log("sandbox: agent \(actions.name) asked chat \(chat.id) for a screen share, but its app cannot share (is_screen_shareable)")
            return nil
        }
        if let current = try await store.latestScreenShare(chatID: chat.id), current.state != .ended {
            throw HTTPError.conflict("chat \(chat.id) has a screen share under way (session \(current.id), \(current.state.rawValue))")
        }
        let deadline = clock.now().addingTimeInterval(timeout)
        let (message, _) = try await store.addMessage(
            chatID: chat.id, sender: ChatMessageSender(type: actions.kind.rawValue, name: actions.name), type: "screen_share",
            text: nil, event: ChatMessageEvent.screenShareRequestedFromAgent.rawValue, clientMessageID: nil, now: clock.now())
        try await publisher.messages([message], endUserID: actions.endUserID)
        let store = self.store
        guard let created = await screenShareOutcomes.wait(for: .init(chatID: chat.id, id: 0), timeout: deadline.timeIntervalSince(clock.now()), answered: {
            guard let latest = try? await store.latestScreenShare(chatID: chat.id), latest.state == .pending,
                let messages = try? await store.messages(chatID: chat.id),
                messages.contains(where: { $0.sequence > message.sequence && $0.screenShare?.id == latest.id
                    && $0.event == ChatMessageEvent.screenShareCodeGenerated.rawValue })
            else { return nil }
            return latest
        }) else { return nil }
        guard let joined = try await joinScreenShare(created, agent: actions.name, endUserID: actions.endUserID) else {
            return try await store.screenShare(id: created.id)
        }
        guard var session = await screenShareOutcomes.wait(for: .init(chatID: chat.id, id: joined.id),
                                                           timeout: deadline.timeIntervalSince(clock.now()), answered: {
            guard let current = try? await store.screenShare(id: joined.id), current.state == .active || current.state == .ended
            else { return nil }
            return current
        }) else { return try await store.screenShare(id: joined.id) }
        if session.state == .active, remoteControl {
            try await publish(endUserID: actions.endUserID, event: .screenShareRequest,
                              data: ["session_id": .integer(Int64(session.id)),
                                     "type": .string(ScreenShareRequestType.remoteControl.rawValue)])
            let answered = await screenShareOutcomes.wait(for: .init(chatID: chat.id, id: -session.id),
                                                          timeout: deadline.timeIntervalSince(clock.now()), answered: { nil })
            let current = try await store.screenShare(id: session.id)
            session = answered ?? current ?? session
        }
        return session
    }

    /// The chat ended: its session ends too.
    func endScreenShares(ofChat chatID: Int) async {
        guard let session = try? await store.latestScreenShare(chatID: chatID), session.state != .ended,
            let ended = try? await store.moveScreenShare(id: session.id, from: [.pending, .authorizing, .active], to: .ended),
            let owner = try? await store.chatOwner(id: chatID)
        else { return }
        try? await screenShareChanged(ended, endUserID: owner)
        await screenShareOutcomes.chatEnded(chatID)
    }
}
