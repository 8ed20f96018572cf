import CCAIWire
import Foundation

/// The post-session phase of ended chats, and the ratings and survey answers end users
/// give (docs/post-session.md).
extension SandboxStore {
    static func createPostSessionTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS ratings (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              communication_type TEXT NOT NULL,
              communication_id INTEGER NOT NULL,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              rating INTEGER NOT NULL,
              feedback TEXT,
              created_at REAL NOT NULL,
              UNIQUE (communication_type, communication_id)
            );
            CREATE TABLE IF NOT EXISTS survey_answers (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              communication_type TEXT NOT NULL,
              communication_id INTEGER NOT NULL,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              survey_id INTEGER NOT NULL,
              answers TEXT NOT NULL,
              created_at REAL NOT NULL,
              UNIQUE (communication_type, communication_id)
            );
            """)
    }

    /// The settings a chat's row carries (none for chats stored before post-session).
    static func postSessionSettings(_ value: SQLiteValue) -> PostSessionSettings {
        value.textValue.flatMap { try? JSONDecoder().decode(PostSessionSettings.self, from: Data($0.utf8)) } ?? PostSessionSettings()
    }

    /// The post-session settings in force for a chat.
    func postSessionSettings(chatID: Int) throws -> PostSessionSettings {
        Self.postSessionSettings(try database.query("SELECT post_session FROM chats WHERE id = ?", [.integer(Int64(chatID))])
            .first?.first ?? .null)
    }

    /// Moves an ended chat's post-session phase from `from` (nil: not started) to `to`;
    /// nil when it is not there.
    func advancePostSession(chatID: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus) throws -> ChatResponse? {
        let changed = try database.run(
            "UPDATE chats SET post_session_status = ? WHERE id = ? AND status = 'ended' AND coalesce(post_session_status, '') = ?",
            [.text(to.rawValue), .integer(Int64(chatID)), .text(from?.rawValue ?? "")])
        return changed == 1 ? try chats(where: "id = ?", [.integer(Int64(chatID))]).first : nil
    }

    /// What a submission met: stored (and the post-session completed), or why not.
    enum Submission {
        case completed(ChatResponse)
        case alreadyGiven
        case notReady(PostSessionTransferStatus?)
    }

    /// Stores an end user's rating of a chat, once, and completes its post-session phase.
    func rate(chatID: Int, endUserID: Int, rating: Int, feedback: String?, now: Date) throws -> Submission {
        try submit(chatID: chatID, table: "ratings") {
            try database.run("""
                INSERT INTO ratings (communication_type, communication_id, end_user_id, rating, feedback, created_at)
                VALUES ('chats', ?, ?, ?, ?, ?)
                """, [.integer(Int64(chatID)), .integer(Int64(endUserID)), .integer(Int64(rating)),
                      feedback.map { .text($0) } ?? .null, .real(now.timeIntervalSince1970)])
        }
    }

    /// Stores an end user's answers to a chat's survey, once, and completes its
    /// post-session phase.
    func submitSurvey(chatID: Int, endUserID: Int, surveyID: Int, answers: [Int: String], now: Date) throws -> Submission {
        let text = String(decoding: try JSONEncoder().encode(SurveyRequest(answers: answers)), as: UTF8.self)
        return try submit(chatID: chatID, table: "survey_answers") {
            try database.run("""
                INSERT INTO survey_answers (communication_type, communication_id, end_user_id, survey_id, answers, created_at)
                VALUES ('chats', ?, ?, ?, ?, ?)
                """, [.integer(Int64(chatID)), .integer(Int64(endUserID)), .integer(Int64(surveyID)), .text(text),
                      .real(now.timeIntervalSince1970)])
        }
    }

    private func submit(chatID: Int, table: String, insert: () throws -> Int) throws -> Submission {
        try database.transaction {
            let given = try database.query("SELECT 1 FROM \(table) WHERE communication_type = 'chats' AND communication_id = ?",
                                           [.integer(Int64(chatID))])
            guard given.isEmpty else { return .alreadyGiven }
            guard let completed = try advancePostSession(chatID: chatID, from: .ready, to: .completed) else {
                let status = try database.query("SELECT post_session_status FROM chats WHERE id = ?", [.integer(Int64(chatID))])
                    .first?.first?.textValue.flatMap(PostSessionTransferStatus.init(rawValue:))
                return .notReady(status)
            }
            _ = try insert()
            return .completed(completed)
        }
    }

    /// A page of the ratings and survey answers, by chat id: at most `limit` of each, of
    /// the chats after `after`.
    func ratingsReport(after: Int, limit: Int) throws -> RatingsReport {
        let page: [SQLiteValue] = [.integer(Int64(after)), .integer(Int64(limit))]
        let ratings = try database.query("""
            SELECT communication_id, communication_type, end_user_id, rating, feedback, created_at FROM ratings
            WHERE communication_id > ? ORDER BY communication_id LIMIT ?
            """, page).compactMap { row -> RatingsReport.Rating? in
            guard let id = row[0].integerValue, let type = row[1].textValue, let user = row[2].integerValue,
                let rating = row[3].integerValue, case .real(let created) = row[5]
            else { return nil }
            return RatingsReport.Rating(communicationId: Int(id), communicationType: CommunicationType(rawValue: type), endUserId: Int(user), rating: Int(rating),
                                        feedback: row[4].textValue, createdAt: created)
        }
        let surveys = try database.query("""
            SELECT communication_id, communication_type, end_user_id, survey_id, answers, created_at FROM survey_answers
            WHERE communication_id > ? ORDER BY communication_id LIMIT ?
            """, page).compactMap { row -> RatingsReport.SurveyAnswers? in
            guard let id = row[0].integerValue, let type = row[1].textValue, let user = row[2].integerValue,
                let survey = row[3].integerValue, let text = row[4].textValue, case .real(let created) = row[5],
                let answers = try? JSONDecoder().decode(SurveyRequest.self, from: Data(text.utf8))
            else { return nil }
            return RatingsReport.SurveyAnswers(
                communicationId: Int(id), communicationType: CommunicationType(rawValue: type), endUserId: Int(user), surveyId: Int(survey),
                answers: Dictionary(uniqueKeysWithValues: answers.answers.map { (String($0.key), $0.value) }), createdAt: created)
        }
        return RatingsReport(ratings: ratings, surveys: surveys)
    }
}
