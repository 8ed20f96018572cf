import CCAIWire
import Foundation

extension SandboxStore {
    /// Stores a message at the end of the chat. A message whose `clientMessageID` the chat
    /// already has is not stored again: the stored one comes back with `isNew` false.
    func addMessage(chatID: Int, sender: ChatMessageSender, type: ChatMessageType, text: String?, event: String?,
                    media: ChatMedia? = nil, smartActionID: Int? = nil, form: CustomForm? = nil, webForm: WebFormRequest? = nil,
                    screenShare: ScreenShareResponse? = nil, clientMessageID: String?, now: Date,
                    redactedText: String? = nil) throws
        -> (message: ChatMessage, isNew: Bool)
    {
        try database.transaction {
            if let clientMessageID, let existing = try message(chatID: chatID, clientMessageID: clientMessageID) {
                return (existing, false)
            }
            let next = (try database.query("SELECT coalesce(max(sequence), 0) + 1 FROM messages WHERE chat_id = ?",
                                           [.integer(Int64(chatID))]).first?.first?.integerValue) ?? 1
            try database.run(
                "INSERT INTO messages (chat_id, sequence, client_message_id, sender_type, sender_name, type, text, event, media_id, smart_action_id, form, web_form, screen_share, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.integer(Int64(chatID)), .integer(next), clientMessageID.map { .text($0) } ?? .null, .text(sender.type.rawValue),
                 sender.name.map { .text($0) } ?? .null, .text(type.rawValue), text.map { .text($0) } ?? .null,
                 event.map { .text($0) } ?? .null, media.map { .integer(Int64($0.id)) } ?? .null,
                 smartActionID.map { .integer(Int64($0)) } ?? .null, try Self.json(form), try Self.json(webForm),
                 try Self.json(screenShare), .real(now.timeIntervalSince1970)])
            if let redactedText { try keepRedactedText(redactedText, ofMessage: database.lastInsertRowID) }
            let message = ChatMessage(id: Int(database.lastInsertRowID), chatId: chatID, sequence: Int(next),
                                      clientMessageId: clientMessageID, sender: sender, type: type, text: text, event: event,
                                      media: media, smartActionId: smartActionID, form: form, webForm: webForm,
                                      screenShare: screenShare, createdAt: now.timeIntervalSince1970)
            return (message, true)
        }
    }

    /// A value stored as JSON text (nil as NULL).
    static func json<Value: Encodable>(_ value: Value?) throws -> SQLiteValue {
        guard let value else { return .null }
        return .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// The message a client sent with `clientMessageID`, if the chat has it.
    func message(chatID: Int, clientMessageID: String) throws -> ChatMessage? {
        try messages(where: "m.chat_id = ? AND m.client_message_id = ?", [.integer(Int64(chatID)), .text(clientMessageID)]).first
    }

    /// A chat's messages in order.
    func messages(chatID: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? ORDER BY m.sequence", [.integer(Int64(chatID))])
    }

    /// A page of a chat's messages in order: at most `limit` after the message `after`.
    func messages(chatID: Int, after: Int, limit: Int) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                     [.integer(Int64(chatID)), .integer(Int64(after)), .integer(Int64(limit))])
    }

    func messages(where condition: String, _ parameters: [SQLiteValue]) throws -> [ChatMessage] {
        try database.query(
            """
            SELECT m.id, m.chat_id, m.sequence, m.client_message_id, m.sender_type, m.sender_name, m.type, m.text, m.event,
                   m.created_at, m.smart_action_id, f.id, f.type, f.name, f.mime_type, f.size, m.form, m.web_form, m.screen_share
            FROM messages m LEFT JOIN media f ON f.id = m.media_id WHERE \(condition)
            """,
            parameters).compactMap { row in
            guard let id = row[0].integerValue, let chat = row[1].integerValue, let sequence = row[2].integerValue,
                let senderType = row[4].textValue, let type = row[6].textValue, case .real(let created) = row[9]
            else { return nil }
            var media: ChatMedia?
            if let mediaID = row[11].integerValue, let kind = row[12].textValue.flatMap(ChatMediaType.init(rawValue:)),
                let mimeType = row[14].textValue, let size = row[15].integerValue
            {
                media = ChatMedia(id: Int(mediaID), type: kind, name: row[13].textValue, mimeType: mimeType, size: Int(size))
            }
            return ChatMessage(id: Int(id), chatId: Int(chat), sequence: Int(sequence), clientMessageId: row[3].textValue,
                               sender: ChatMessageSender(type: ChatSenderType(rawValue: senderType), name: row[5].textValue),
                               type: ChatMessageType(rawValue: type),
                               text: row[7].textValue, event: row[8].textValue, media: media,
                               smartActionId: row[10].integerValue.map { Int($0) },
                               form: row[16].textValue.flatMap { try? JSONDecoder().decode(CustomForm.self, from: Data($0.utf8)) },
                               webForm: row[17].textValue.flatMap { try? JSONDecoder().decode(WebFormRequest.self, from: Data($0.utf8)) },
                               screenShare: row[18].textValue.flatMap { try? JSONDecoder().decode(ScreenShareResponse.self, from: Data($0.utf8)) },
                               createdAt: created)
        }
    }
}
