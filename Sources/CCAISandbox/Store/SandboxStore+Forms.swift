import CCAIWire
import Foundation

/// Forms agents sent (custom and web) and what the end user answered.
extension SandboxStore {
    /// A form an agent sent in a chat; its id is the forms API's `smartActionId`.
    struct FormRequest: Sendable, Equatable {
        enum Kind: String, Sendable {
            case custom
            case web
        }

        /// `requested`, then `submitted` (a custom form), `completed` or `failed` (a web form).
        enum Status: String, Sendable {
            case requested
            case submitted
            case completed
            case failed
        }

        var id: Int
        var chatID: Int
        var kind: Kind
        var formID: Int?
        var externalFormID: String?
        var status: Status
        var answers: [SubmitCustomFormRequest.Answer]
        var message: String?
    }

    static func createFormTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS form_requests (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              kind TEXT NOT NULL,
              form_id INTEGER,
              external_form_id TEXT,
              status TEXT NOT NULL,
              answers TEXT,
              message TEXT,
              created_at REAL NOT NULL
            );
            """)
    }

    func addFormRequest(chatID: Int, kind: FormRequest.Kind, formID: Int?, externalFormID: String?, now: Date) throws -> FormRequest {
        try database.run(
            "INSERT INTO form_requests (chat_id, kind, form_id, external_form_id, status, created_at) VALUES (?, ?, ?, ?, 'requested', ?)",
            [.integer(Int64(chatID)), .text(kind.rawValue), formID.map { .integer(Int64($0)) } ?? .null,
             externalFormID.map { .text($0) } ?? .null, .real(now.timeIntervalSince1970)])
        return FormRequest(id: Int(database.lastInsertRowID), chatID: chatID, kind: kind, formID: formID,
                           externalFormID: externalFormID, status: .requested, answers: [], message: nil)
    }

    /// A form request of one of `endUserID`'s chats, with the chat.
    func formRequest(id: Int, endUserID: Int) throws -> (request: FormRequest, chat: ChatResponse)? {
        guard let row = try database.query(
            """
            SELECT r.id, r.chat_id, r.kind, r.form_id, r.external_form_id, r.status, r.answers, r.message
            FROM form_requests r JOIN chats c ON c.id = r.chat_id WHERE r.id = ? AND c.end_user_id = ?
            """, [.integer(Int64(id)), .integer(Int64(endUserID))]).first,
            let request = try Self.formRequest(row),
            let chat = try chat(id: request.chatID, endUserID: endUserID)
        else { return nil }
        return (request, chat)
    }

    /// The form requests of a chat, oldest first (the console's).
    func formRequests(chatID: Int) throws -> [FormRequest] {
        try database.query("""
            SELECT id, chat_id, kind, form_id, external_form_id, status, answers, message FROM form_requests
            WHERE chat_id = ? ORDER BY id
            """, [.integer(Int64(chatID))]).compactMap(Self.formRequest)
    }

    /// A request of a `form_requests` row (its columns in the order the queries above select them).
    private static func formRequest(_ row: [SQLiteValue]) throws -> FormRequest? {
        guard let id = row[0].integerValue, let chatID = row[1].integerValue,
            let kind = row[2].textValue.flatMap(FormRequest.Kind.init(rawValue:)),
            let status = row[5].textValue.flatMap(FormRequest.Status.init(rawValue:))
        else { return nil }
        let answers = try row[6].textValue.map {
            try JSONDecoder().decode([SubmitCustomFormRequest.Answer].self, from: Data($0.utf8))
        } ?? []
        return FormRequest(id: Int(id), chatID: Int(chatID), kind: kind, formID: row[3].integerValue.map { Int($0) },
                           externalFormID: row[4].textValue, status: status, answers: answers, message: row[7].textValue)
    }

    /// Records the end user's answers to a request still `requested`; nil when it was
    /// answered already.
    func answerFormRequest(id: Int, status: FormRequest.Status, answers: [SubmitCustomFormRequest.Answer], message: String?)
        throws -> Bool
    {
        try database.run(
            "UPDATE form_requests SET status = ?, answers = ?, message = ? WHERE id = ? AND status = 'requested'",
            [.text(status.rawValue), try Self.json(answers), message.map { .text($0) } ?? .null, .integer(Int64(id))]) == 1
    }
}
