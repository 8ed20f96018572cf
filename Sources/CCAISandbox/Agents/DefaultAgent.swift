import CCAIWire
import Foundation

/// The behaviour of a sandbox agent without a script (docs/sdk-and-sandbox.md, agent scripts): it takes a
/// queued chat on one of its queues, greets, answers each message (and acknowledges each
/// file), and ends the chat after the customer says goodbye.
struct DefaultAgent {
    let actions: AgentActions

    /// What it does, in a line (`ccai sandbox show`).
    static let summary = "takes a chat at once, greets, answers each message and file, ends the chat when the customer says goodbye; "
        + "takes a call at once and stays on it until the customer hangs up"

    /// A call waits: the agent takes it at once, and stays on it until the customer hangs up.
    static func callWaiting(_ actions: CallAgentActions) async throws {
        _ = try await actions.join()
    }

    /// A chat was queued: the agent takes it at once and greets.
    func chatQueued() async throws {
        guard try await actions.join() else { return }
        try await actions.say("Hi, I'm \(actions.name). How can I help you?")
    }

    /// The customer wrote: answer, or say goodbye and end the chat. The desk hands the
    /// message over as agents see it (redacted when the queue redacts).
    func messageReceived(_ message: ChatMessage, in chat: ChatResponse) async throws {
        guard chat.status == .active else { return }
        if let media = message.media {
            try await actions.say("Thanks, I received your \(media.type == .video ? "video" : "image")\(media.name.map { " \"\($0)\"" } ?? "").")
            return
        }
        guard let text = message.text else { return }
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter })
        if words.contains("bye") || words.contains("goodbye") {
            try await actions.say("Thanks for contacting us. Goodbye!")
            _ = try await actions.end()
        } else {
            try await actions.say("You said: \"\(text)\". Let me look into that for you.")
        }
    }
}
