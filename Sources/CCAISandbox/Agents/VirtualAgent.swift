import CCAIWire
import Foundation

/// The behaviour of a virtual agent without a script (docs/sdk-and-sandbox.md, agent scripts): it takes the
/// queue's chats first, answers by its keyword rules, and escalates to a human agent when
/// the customer asks for one ("human", "agent", "person", "representative").
struct VirtualAgent {
    let actions: AgentActions
    let configuration: VirtualAgentConfiguration
    /// Starts the escalation to a human (the agent desk's).
    let escalate: @Sendable () async throws -> Void

    static let escalationWords: Set<String> = ["human", "agent", "person", "representative", "someone"]

    func chatQueued() async throws {
        guard try await actions.join() else { return }
        try await actions.say("Hi, I'm \(actions.name), a virtual agent. Ask me anything, or ask for a human agent.")
    }

    /// Answers one message (as agents see it: redacted when the queue redacts).
    func messageReceived(_ message: ChatMessage, in chat: ChatResponse) async throws {
        guard chat.status == .active, let text = message.text?.lowercased() else { return }
        let words = Set(text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        if !words.isDisjoint(with: Self.escalationWords) {
            try await actions.say("Let me connect you with a human agent.")
            try await escalate()
            return
        }
        try await actions.say(configuration.answer(to: text)
                              ?? "I'm not sure I can help with that. Ask for a human agent if you need one.")
    }
}

extension VirtualAgentConfiguration {
    /// The answer of the first rule with a keyword in `text` (a keyword with a space
    /// matches as a phrase, others as whole words), if any.
    func answer(to text: String) -> String? {
        let text = text.lowercased()
        let words = Set(text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        return rules?.first { rule in
            rule.keywords.contains { keyword in
                let keyword = keyword.lowercased()
                return keyword.contains(" ") ? text.contains(keyword) : words.contains(keyword)
            }
        }?.answer
    }
}
