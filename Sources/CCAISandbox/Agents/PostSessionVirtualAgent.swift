import CCAIWire
import Foundation

/// A post-session virtual agent without a script (docs/post-session.md): once the
/// post-session phase of an ended chat is `ready`, it joins that chat, asks for feedback,
/// answers by its keyword rules, and finishes (the phase is `completed`) when the
/// customer says goodbye or that they are done.
struct PostSessionVirtualAgent {
    let actions: AgentActions
    let configuration: VirtualAgentConfiguration

    static let closingWords: Set<String> = ["bye", "goodbye", "done", "no"]

    func start() async throws {
        guard try await actions.join() else { return }
        try await actions.say("Hi, I'm \(actions.name), a virtual agent. Before you go: may I ask about your experience today?")
    }

    func messageReceived(_ message: ChatMessage, in chat: ChatResponse) async throws {
        guard let text = message.text else { return }
        let words = Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
        if !words.isDisjoint(with: Self.closingWords) {
            try await actions.say("Thank you for your time. Goodbye!")
            _ = try await actions.end()
            return
        }
        try await actions.say(configuration.answer(to: text) ?? "Thank you, noted. Say goodbye when you are done.")
    }
}
