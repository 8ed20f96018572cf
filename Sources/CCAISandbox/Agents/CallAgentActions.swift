import CCAIWire
import Foundation

/// What a sandbox agent does to a call, scripted or not: take it (a human: `connecting`,
/// the agent joins, `connected`; the queue's virtual agent answers it, `connected`), hold
/// it and take it off hold, escalate it (a virtual agent), transfer it and end it.
/// Everything goes through ``CallLifecycle``, stored and published to the call's end user.
struct CallAgentActions: Sendable {
    let environment: AgentEnvironment
    /// The desk that started the agent: it hears when the agent transfers the call.
    let desk: AgentDesk
    let callID: Int
    let endUserID: Int
    let name: String
    var kind: AgentKind = .human

    private var lifecycle: CallLifecycle { environment.calls.lifecycle }

    /// This agent as a call participant in events.
    var participant: ChatMember { ChatMember(type: kind.senderType.rawValue, name: name) }

    /// Takes the waiting call: `connecting` with this agent (the calls behind it hear
    /// their new estimates), `participant_updated` (joined), `connected`; a virtual agent
    /// answers it, connected at once. False when the call is no longer there to take (or,
    /// for a virtual agent, was escalated).
    func join() async throws -> Bool {
        if kind == .virtual {
            guard let answered = try await lifecycle.answer(callID, endUserID: endUserID, virtualAgent: name) else { return false }
            try await environment.calls.refreshWaitTimes(menuID: answered.menuId)
            try await publishParticipant(.joined)
            return true
        }
        guard let assigned = try await lifecycle.move(callID, endUserID: endUserID, .assign, agent: name) else { return false }
        try await environment.calls.refreshWaitTimes(menuID: assigned.menuId)
        try await publishParticipant(.joined)
        return try await lifecycle.move(callID, endUserID: endUserID, .connect) != nil
    }

    /// `participant_updated` for this agent (`joined`, `left`).
    func publishParticipant(_ change: ChatMemberPayload.Change) async throws {
        try await environment.publisher.publish(endUserID: endUserID, event: .participantUpdated,
                                                encoding: CallParticipantPayload(callId: callID, change: change, participant: participant))
    }

    /// Puts the connected call on hold, or a `conflict` naming its status.
    func hold() async throws -> CallResponse {
        try await move(.hold, "only a connected call can be put on hold")
    }

    /// Takes the held call off hold, or a `conflict` naming its status.
    func resume() async throws -> CallResponse {
        try await move(.unhold, "only a call on hold can be resumed")
    }

    private func move(_ transition: CallTransition, _ rule: String) async throws -> CallResponse {
        if let moved = try await lifecycle.move(callID, endUserID: endUserID, transition) { return moved }
        let status = try await environment.calls.call(callID, endUserID: endUserID).status
        throw HTTPError.conflict("call \(callID) is \(status.rawValue): \(rule)")
    }

    /// Asks the caller for a smart action (text, a verification or a screen share: a call
    /// carries no files) and waits up to `timeout` seconds for the outcome: the action
    /// (finished, failed, or as it stands at the timeout); nil when the call ended first.
    func requestSmartAction(_ type: SmartActionType, timeout: TimeInterval) async throws -> SmartAction? {
        let call = try await environment.calls.call(callID, endUserID: endUserID)
        guard call.isInProgress else { throw HTTPError.conflict("call \(callID) has ended: there is no one to ask") }
        let smartActions = environment.smartActions
        let action = try await smartActions.request(in: CommunicationRouter(id: callID, type: .call), endUserID: endUserID, type: type,
                                                    preSession: false, requestedBy: name)
        return await smartActions.outcome(of: action, timeout: timeout)
    }

    /// A virtual agent hands the call to the queue's human agents
    /// (``AgentDesk/escalate(callID:endUserID:)``).
    func escalate() async throws -> CallResponse {
        try await desk.escalate(callID: callID, endUserID: endUserID)
    }

    /// Moves the call to another queue (``AgentDesk/transfer(_:toMenu:)``).
    func transfer(toMenu menuID: Int) async throws -> CallResponse {
        try await desk.transfer(self, toMenu: menuID)
    }

    /// Whether the call is still going on.
    func isInProgress() async throws -> Bool {
        try await environment.calls.call(callID, endUserID: endUserID).isInProgress
    }

    /// The post-session virtual agent of the ended call finished: the phase is completed.
    func completePostSession() async throws {
        _ = try await lifecycle.advancePostSession(callID, endUserID: endUserID, from: .ready, to: .completed)
    }

    /// Ends the call as the agent; false when it had already ended.
    func end() async throws -> Bool {
        try await lifecycle.end(callID, endUserID: endUserID, reason: .agent) != nil
    }
}
