import CCAIWire

/// What a transcript reads of a chat's messages: how far they go (to tell that a kept
/// transcript is still current) and the first ones.
extension SandboxStore {
    /// The messages of a chat, counted: their number, the last sequence number and the
    /// files still there (pruning takes them from ended chats).
    struct MessagesVersion: Equatable, Sendable {
        var count: Int
        var lastSequence: Int
        var files: Int
    }

    func messagesVersion(chatID: Int) throws -> MessagesVersion {
        let row = try database.query("""
            SELECT count(*), coalesce(max(m.sequence), 0), count(f.id)
            FROM messages m LEFT JOIN media f ON f.id = m.media_id WHERE m.chat_id = ?
            """, [.integer(Int64(chatID))]).first
        func number(_ index: Int) -> Int { (row?[index].integerValue).map(Int.init) ?? 0 }
        return MessagesVersion(count: number(0), lastSequence: number(1), files: number(2))
    }

    /// A chat's first `limit` messages, in order.
    func messages(chatID: Int, first limit: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? ORDER BY m.sequence LIMIT ?", [.integer(Int64(chatID)), .integer(Int64(limit))])
    }

    /// A chat's last `limit` messages, in order.
    func messages(chatID: Int, last limit: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? ORDER BY m.sequence DESC LIMIT ?", [.integer(Int64(chatID)), .integer(Int64(limit))])
            .reversed()
    }
}
