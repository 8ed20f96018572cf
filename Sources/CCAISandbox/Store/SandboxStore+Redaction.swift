import CCAIWire

/// What agents see of the end user's messages, kept beside the text as written
/// (`messages.redacted_text`): a message is redacted once, before it is stored
/// (``Conversation/post(_:in:endUserID:)``), and agents and transcripts on a redacting
/// queue read what was kept. Nothing is kept for a text with nothing to redact.
extension SandboxStore {
    /// Adds the column to the messages of a data folder an earlier version wrote, and
    /// redacts the end user's messages already there, once (the column then exists).
    static func addRedactedTexts(in database: SQLiteDatabase) throws {
        let columns = Set(try database.query("PRAGMA table_info(messages)").compactMap { $0[1].textValue })
        guard !columns.contains("redacted_text") else { return }
        try database.transaction {
            try database.execute("ALTER TABLE messages ADD COLUMN redacted_text TEXT")
            var redacted: [(id: Int64, text: String)] = []
            try database.query("SELECT id, text FROM messages WHERE sender_type = 'end_user' AND text IS NOT NULL") { row in
                if let id = row[0].integerValue, let text = row[1].textValue {
                    let seen = Redactor.redact(text)
                    if seen != text { redacted.append((id, seen)) }
                }
                return true
            }
            for (id, text) in redacted {
                try database.run("UPDATE messages SET redacted_text = ? WHERE id = ?", [.text(text), .integer(id)])
            }
        }
    }

    /// Keeps the redacted text of a message being stored (in its transaction).
    func keepRedactedText(_ text: String, ofMessage id: Int64) throws {
        try database.run("UPDATE messages SET redacted_text = ? WHERE id = ?", [.text(text), .integer(id)])
    }

    /// The redacted text of a message, if it had something to redact.
    func redactedText(messageID: Int) throws -> String? {
        try database.query("SELECT redacted_text FROM messages WHERE id = ?", [.integer(Int64(messageID))]).first?.first?.textValue
    }

    /// The redacted texts of a chat's messages that had something to redact, by message id.
    func redactedTexts(chatID: Int) throws -> [Int: String] {
        var texts: [Int: String] = [:]
        try database.query("SELECT id, redacted_text FROM messages WHERE chat_id = ? AND redacted_text IS NOT NULL",
                           [.integer(Int64(chatID))]) { row in
            if let id = row[0].integerValue, let text = row[1].textValue { texts[Int(id)] = text }
            return true
        }
        return texts
    }
}
