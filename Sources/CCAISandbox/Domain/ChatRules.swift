import CCAIWire

/// The rules of a chat's life that routes and every kind of agent share, said once: what
/// may happen to a chat that has ended, and how the refusal reads.
extension HTTPError {
    /// The refusal of anything but reading (and post-session steps) on an ended chat.
    static func chatEnded(_ chatID: Int) -> HTTPError {
        .conflict("chat \(chatID) has ended")
    }
}

extension ChatResponse {
    /// Goes on while the chat is in progress; otherwise the `chatEnded` conflict.
    func requireInProgress() throws {
        guard isInProgress else { throw HTTPError.chatEnded(id) }
    }
}

extension ChatResponse {
    /// The end user's text as agents see it: redacted when the chat's queue redacts (seed
    /// 001, automatic redaction). For what is redacted once, as it is kept (a preview); a
    /// message is redacted as it is stored (``Conversation``).
    func agentView(of text: String) -> String {
        redactionEnabled ? Redactor.redact(text) : text
    }
}
