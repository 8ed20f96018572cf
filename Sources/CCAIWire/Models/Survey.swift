import Foundation

/// How a survey question is answered (seed 000: CSAT, star rating, free-form text,
/// enumeration, numeric scale). Every answer travels as a string.
public enum SurveyQuestionType: String, Codable, Equatable, Sendable, CaseIterable {
    /// A satisfaction score, 1 to 5.
    case csat
    /// Stars, 1 to 5.
    case starRating = "star_rating"
    /// Any text, at most 10,000 characters.
    case freeText = "free_text"
    /// One of the question's `options`.
    case enumeration
    /// A whole number from the question's `min` to its `max`.
    case numericScale = "numeric_scale"
}

/// A question of a survey.
public struct SurveyQuestion: Codable, Equatable, Sendable {
    public var id: Int
    public var type: SurveyQuestionType
    public var text: String
    public var required: Bool
    /// The choices of an `enumeration`.
    public var options: [String]?
    /// The bounds of a `numeric_scale`.
    public var min: Int?
    public var max: Int?

    public init(id: Int, type: SurveyQuestionType, text: String, required: Bool = false, options: [String]? = nil,
                min: Int? = nil, max: Int? = nil) {
        self.id = id
        self.type = type
        self.text = text
        self.required = required
        self.options = options
        self.min = min
        self.max = max
    }
}

/// A queue's post-session survey, as `rateService.getSurvey` answers it (seed 000).
public struct Survey: Codable, Equatable, Sendable {
    public var id: Int?
    public var lang: String?
    public var questions: [SurveyQuestion]
    /// The "thank you" text to show after submission.
    public var signOffDisplayText: String?

    enum CodingKeys: String, CodingKey {
        case id, lang, questions
        case signOffDisplayText = "sign_off_display_text"
    }

    public init(id: Int?, lang: String?, questions: [SurveyQuestion], signOffDisplayText: String?) {
        self.id = id
        self.lang = lang
        self.questions = questions
        self.signOffDisplayText = signOffDisplayText
    }

    /// What is wrong with `answers` (question id to value), every problem named: unknown
    /// questions, required ones left out, values that do not fit their question's type.
    /// The app's side and the platform's use it alike.
    ///
    /// ```swift
    /// survey.problems([1: "6"])   // ["question 1 (How did we do?): a whole number from 1 to 5 expected, got '6'"]
    /// ```
    /// `answers` as the platform keeps them: each value trimmed of surrounding spaces and
    /// line breaks, as ``problems(_:)`` checks it.
    public static func trimmed(_ answers: [Int: String]) -> [Int: String] {
        answers.mapValues { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    public func problems(_ answers: [Int: String]) -> [String] {
        var problems: [String] = []
        let known = Set(questions.map(\.id))
        for id in answers.keys.sorted() where !known.contains(id) {
            problems.append("question \(id): the survey has no such question")
        }
        for question in questions {
            let label = "question \(question.id) (\(question.text))"
            let value = answers[question.id]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if value.isEmpty {
                if question.required { problems.append("\(label): required") }
                continue
            }
            if value.utf8.count > FieldLimits.textBytes {
                problems.append("\(label): at most \(FieldLimits.textBytes) bytes expected")
            } else if let problem = Survey.problem(value, question) {
                problems.append("\(label): \(problem)")
            }
        }
        return problems
    }

    private static func problem(_ value: String, _ question: SurveyQuestion) -> String? {
        func wholeNumber(_ low: Int, _ high: Int) -> String? {
            guard let number = Int(value), (low...high).contains(number) else {
                return "a whole number from \(low) to \(high) expected, got '\(value)'"
            }
            return nil
        }
        switch question.type {
        case .csat, .starRating:
            return wholeNumber(1, 5)
        case .numericScale:
            let low = question.min ?? 0, high = question.max ?? 10
            return low <= high ? wholeNumber(low, high) : "the question's scale is empty (\(low) to \(high))"
        case .freeText:
            return value.count > 10_000 ? "at most 10000 characters expected" : nil
        case .enumeration:
            let options = question.options ?? []
            return options.contains(value) ? nil
                : "one of \(options.map { "'\($0)'" }.joined(separator: ", ")) expected, got '\(value)'"
        }
    }
}

/// The answers to a survey (seed 000's `SurveyRequest`): question ids to values. On the
/// wire an object whose keys are the ids as strings.
public struct SurveyRequest: Codable, Equatable, Sendable {
    public var answers: [Int: String]

    public init(answers: [Int: String]) {
        self.answers = answers
    }

    enum CodingKeys: String, CodingKey { case answers }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let byText = try container.decode([String: String].self, forKey: .answers)
        var answers: [Int: String] = [:]
        for (key, value) in byText {
            guard let id = Int(key) else {
                throw DecodingError.dataCorruptedError(forKey: .answers, in: container,
                                                       debugDescription: "question ids are integers, got '\(key)'")
            }
            answers[id] = value
        }
        self.answers = answers
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Dictionary(uniqueKeysWithValues: answers.map { (String($0.key), $0.value) }), forKey: .answers)
    }
}

/// A CSAT rating (seed 000's `RatingRequest`): typically 1 to 5, with optional feedback.
public struct RatingRequest: Codable, Equatable, Sendable {
    public var rating: Int?
    public var feedback: String?

    public init(rating: Int?, feedback: String? = nil) {
        self.rating = rating
        self.feedback = feedback
    }

    /// What is wrong with the rating: none, or out of 1...5; feedback over 10,000 characters.
    public var problems: [String] {
        var problems: [String] = []
        if let rating {
            if !(1...5).contains(rating) { problems.append("rating: a whole number from 1 to 5 expected, got \(rating)") }
        } else {
            problems.append("rating: required (a whole number from 1 to 5)")
        }
        if let feedback, feedback.count > 10_000 || feedback.utf8.count > FieldLimits.textBytes {
            problems.append("feedback: at most 10000 characters and \(FieldLimits.textBytes) bytes expected")
        }
        return problems
    }
}

/// What the sandbox recorded of the ratings and survey answers (`GET /admin/ratings`).
public struct RatingsReport: Codable, Equatable, Sendable {
    public struct Rating: Codable, Equatable, Sendable {
        public var communicationId: Int
        public var communicationType: CommunicationType
        public var endUserId: Int
        public var rating: Int
        public var feedback: String?
        /// Unix seconds.
        public var createdAt: Double

        enum CodingKeys: String, CodingKey {
            case communicationId = "communication_id"
            case communicationType = "communication_type"
            case endUserId = "end_user_id"
            case rating, feedback
            case createdAt = "created_at"
        }

        public init(communicationId: Int, communicationType: CommunicationType, endUserId: Int, rating: Int, feedback: String?,
                    createdAt: Double) {
            self.communicationId = communicationId
            self.communicationType = communicationType
            self.endUserId = endUserId
            self.rating = rating
            self.feedback = feedback
            self.createdAt = createdAt
        }
    }

    public struct SurveyAnswers: Codable, Equatable, Sendable {
        public var communicationId: Int
        public var communicationType: CommunicationType
        public var endUserId: Int
        public var surveyId: Int
        /// Question ids (as strings) to values.
        public var answers: [String: String]
        public var createdAt: Double

        enum CodingKeys: String, CodingKey {
            case communicationId = "communication_id"
            case communicationType = "communication_type"
            case endUserId = "end_user_id"
            case surveyId = "survey_id"
            case answers
            case createdAt = "created_at"
        }

        public init(communicationId: Int, communicationType: CommunicationType, endUserId: Int, surveyId: Int, answers: [String: String],
                    createdAt: Double) {
            self.communicationId = communicationId
            self.communicationType = communicationType
            self.endUserId = endUserId
            self.surveyId = surveyId
            self.answers = answers
            self.createdAt = createdAt
        }
    }

    public var ratings: [Rating]
    public var surveys: [SurveyAnswers]

    public init(ratings: [Rating], surveys: [SurveyAnswers]) {
        self.ratings = ratings
        self.surveys = surveys
    }
}
