import CCAIWire
import Foundation

/// The post-session phase of ended chats and calls, and the ratings and survey answers end
/// users give (docs/post-session.md). A session is named by its communication type
/// (`chats`, `calls`: also its table) and id.
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

    /// The table of a communication type's sessions (never a caller's text: the two known types).
    private static func table(_ type: CommunicationType) -> String {
        type == .calls ? "calls" : "chats"
    }

    /// The post-session settings in force for a chat, or for a call (given when it ended).
    func postSessionSettings(_ type: CommunicationType, id: Int) throws -> PostSessionSettings {
        Self.postSessionSettings(try database.query("SELECT post_session FROM \(Self.table(type)) WHERE id = ?", [.integer(Int64(id))])
            .first?.first ?? .null)
    }

    /// Moves an ended chat's post-session phase from `from` (nil: not started) to `to`;
    /// nil when it is not there.
    func advancePostSession(chatID: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus) throws -> ChatResponse? {
        try advancePostSession(.chats, id: chatID, from: from, to: to) ? try chats(where: "id = ?", [.integer(Int64(chatID))]).first : nil
    }

    /// Moves an ended call's post-session phase, as ``advancePostSession(chatID:from:to:)``
    /// a chat's; a call without a flow has none to move.
    func advancePostSession(callID: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus) throws -> CallResponse? {
        try advancePostSession(.calls, id: callID, from: from, to: to) ? try call(id: callID) : nil
    }

    private func advancePostSession(_ type: CommunicationType, id: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus)
        throws -> Bool
    {
        let required = type == .calls ? " AND post_session_required = 1" : ""
        return try database.run(
            """
            UPDATE \(Self.table(type)) SET post_session_status = ?
              WHERE id = ? AND status = 'ended' AND coalesce(post_session_status, '') = ?\(required)
            """,
            [.text(to.rawValue), .integer(Int64(id)), .text(from?.rawValue ?? "")]) == 1
    }

    /// What a submission met: stored (and the post-session completed), or why not.
    enum Submission {
        case completed
        case alreadyGiven
        case notReady(PostSessionTransferStatus?)
    }

    /// Stores an end user's rating of a chat or call, once, and completes its post-session phase.
    func rate(_ type: CommunicationType, id: Int, endUserID: Int, rating: Int, feedback: String?, now: Date) throws -> Submission {
        try submit(type, id: id, table: "ratings") {
            try database.run("""
                INSERT INTO ratings (communication_type, communication_id, end_user_id, rating, feedback, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(type.rawValue), .integer(Int64(id)), .integer(Int64(endUserID)), .integer(Int64(rating)),
                      feedback.map { .text($0) } ?? .null, .real(now.timeIntervalSince1970)])
        }
    }

    /// Stores an end user's answers to a chat's or call's survey, once, and completes its
    /// post-session phase.
    func submitSurvey(_ type: CommunicationType, id: Int, endUserID: Int, surveyID: Int, answers: [Int: String], now: Date) throws
        -> Submission
    {
        let text = String(decoding: try JSONEncoder().encode(SurveyRequest(answers: answers)), as: UTF8.self)
        return try submit(type, id: id, table: "survey_answers") {
            try database.run("""
                INSERT INTO survey_answers (communication_type, communication_id, end_user_id, survey_id, answers, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(type.rawValue), .integer(Int64(id)), .integer(Int64(endUserID)), .integer(Int64(surveyID)), .text(text),
                      .real(now.timeIntervalSince1970)])
        }
    }

    private func submit(_ type: CommunicationType, id: Int, table: String, insert: () throws -> Int) throws -> Submission {
        try database.transaction {
            let given = try database.query("SELECT 1 FROM \(table) WHERE communication_type = ? AND communication_id = ?",
                                           [.text(type.rawValue), .integer(Int64(id))])
            guard given.isEmpty else { return .alreadyGiven }
            guard try advancePostSession(type, id: id, from: .ready, to: .completed) else {
                let status = try database.query("SELECT post_session_status FROM \(Self.table(type)) WHERE id = ?", [.integer(Int64(id))])
                    .first?.first?.textValue.flatMap(PostSessionTransferStatus.init(rawValue:))
                return .notReady(status)
            }
            _ = try insert()
            return .completed
        }
    }

    /// A page of the ratings and survey answers of one communication type, by session id:
    /// at most `limit` of each, of the sessions after `after`.
    func ratingsReport(_ type: CommunicationType, after: Int, limit: Int) throws -> RatingsReport {
        let page: [SQLiteValue] = [.text(type.rawValue), .integer(Int64(after)), .integer(Int64(limit))]
        let ratings = try database.query("""
            SELECT communication_id, communication_type, end_user_id, rating, feedback, created_at FROM ratings
            WHERE communication_type = ? AND communication_id > ? ORDER BY communication_id LIMIT ?
            """, page).compactMap(Self.rating)
        let surveys = try database.query("""
            SELECT communication_id, communication_type, end_user_id, survey_id, answers, created_at FROM survey_answers
            WHERE communication_type = ? AND communication_id > ? ORDER BY communication_id LIMIT ?
            """, page).compactMap(Self.surveyAnswers)
        return RatingsReport(ratings: ratings, surveys: surveys)
    }

    /// The ratings of the `limit` latest sessions of `type` rated, oldest first.
    func latestRatings(_ type: CommunicationType, limit: Int) throws -> [RatingsReport.Rating] {
        try database.query("""
            SELECT communication_id, communication_type, end_user_id, rating, feedback, created_at FROM ratings
            WHERE communication_type = ? ORDER BY communication_id DESC LIMIT ?
            """, [.text(type.rawValue), .integer(Int64(limit))]).compactMap(Self.rating).reversed()
    }

    /// The survey answers of the `limit` latest sessions of `type` that answered, oldest first.
    func latestSurveyAnswers(_ type: CommunicationType, limit: Int) throws -> [RatingsReport.SurveyAnswers] {
        try database.query("""
            SELECT communication_id, communication_type, end_user_id, survey_id, answers, created_at FROM survey_answers
            WHERE communication_type = ? ORDER BY communication_id DESC LIMIT ?
            """, [.text(type.rawValue), .integer(Int64(limit))]).compactMap(Self.surveyAnswers).reversed()
    }

    /// The answers of a `survey_answers` row (its columns in the order the queries above select them).
    private static func surveyAnswers(_ row: [SQLiteValue]) -> RatingsReport.SurveyAnswers? {
        guard let id = row[0].integerValue, let type = row[1].textValue, let user = row[2].integerValue,
            let survey = row[3].integerValue, let text = row[4].textValue, case .real(let created) = row[5],
            let answers = try? JSONDecoder().decode(SurveyRequest.self, from: Data(text.utf8))
        else { return nil }
        return RatingsReport.SurveyAnswers(
            communicationId: Int(id), communicationType: CommunicationType(rawValue: type), endUserId: Int(user), surveyId: Int(survey),
            answers: Dictionary(uniqueKeysWithValues: answers.answers.map { (String($0.key), $0.value) }), createdAt: created)
    }

    /// A rating of a `ratings` row (its columns in the order the queries above select them).
    private static func rating(_ row: [SQLiteValue]) -> RatingsReport.Rating? {
        guard let id = row[0].integerValue, let type = row[1].textValue, let user = row[2].integerValue,
            let rating = row[3].integerValue, case .real(let created) = row[5]
        else { return nil }
        return RatingsReport.Rating(communicationId: Int(id), communicationType: CommunicationType(rawValue: type), endUserId: Int(user),
                                    rating: Int(rating), feedback: row[4].textValue, createdAt: created)
    }
}
