import CCAIWire
import Foundation

/// Files sent in chats, by end users (images and videos) and by agents (19 types).
extension SandboxStore {
    static func createMediaTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS media (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              type TEXT NOT NULL,
              name TEXT,
              mime_type TEXT NOT NULL,
              size INTEGER NOT NULL,
              data BLOB NOT NULL,
              created_at REAL NOT NULL
            );
            """)
    }

    /// Stores a file of a chat.
    func addMedia(chatID: Int, type: ChatMediaType, name: String?, mimeType: String, data: Data, now: Date) throws -> ChatMedia {
        try database.run(
            "INSERT INTO media (chat_id, type, name, mime_type, size, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.integer(Int64(chatID)), .text(type.rawValue), name.map { .text($0) } ?? .null, .text(mimeType),
             .integer(Int64(data.count)), .blob(data), .real(now.timeIntervalSince1970)])
        return ChatMedia(id: Int(database.lastInsertRowID), type: type, name: name, mimeType: mimeType, size: data.count)
    }

    /// A file with its bytes, when it belongs to one of `endUserID`'s chats (any chat's
    /// without `endUserID`: the Apps API's pre-signed downloads).
    func media(id: Int, endUserID: Int?) throws -> (media: ChatMedia, data: Data)? {
        guard let row = try database.query(
            """
            SELECT f.id, f.type, f.name, f.mime_type, f.size, f.data FROM media f JOIN chats c ON c.id = f.chat_id
            WHERE f.id = ? AND (? IS NULL OR c.end_user_id = ?)
            """, [.integer(Int64(id))] + Array(repeating: endUserID.map { .integer(Int64($0)) } ?? .null, count: 2)).first,
            let type = row[1].textValue.flatMap(ChatMediaType.init(rawValue:)), let mimeType = row[3].textValue,
            let size = row[4].integerValue
        else { return nil }
        return (ChatMedia(id: id, type: type, name: row[2].textValue, mimeType: mimeType, size: Int(size)),
                row[5].blobValue ?? Data())
    }

    /// The metadata of files of a chat, by id.
    func media(ids: [Int], chatID: Int) throws -> [ChatMedia] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joined(separator: ", ")
        return try database.query(
            "SELECT id, type, name, mime_type, size FROM media WHERE chat_id = ? AND id IN (\(list)) ORDER BY id",
            [.integer(Int64(chatID))]).compactMap { row in
            guard let id = row[0].integerValue, let type = row[1].textValue.flatMap(ChatMediaType.init(rawValue:)),
                let mimeType = row[3].textValue, let size = row[4].integerValue
            else { return nil }
            return ChatMedia(id: Int(id), type: type, name: row[2].textValue, mimeType: mimeType, size: Int(size))
        }
    }

    /// The messages of a chat that carry a file of `type`, oldest first, whoever sent them.
    func mediaMessages(chatID: Int, type: ChatMediaType) throws -> [ChatMessage] {
        try messages(where: "m.chat_id = ? AND f.type = ? ORDER BY m.sequence", [.integer(Int64(chatID)), .text(type.rawValue)])
    }
}
