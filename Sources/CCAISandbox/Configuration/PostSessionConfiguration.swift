import CCAIWire
import Foundation

/// Post-session rules as an admin sets them (docs/post-session.md): company-wide in
/// `company.post_session`, per queue in a menu's `post_session`. A key left out inherits
/// from the parent queue, a top queue's from the company.
///
/// ```lua
/// post_session = { virtual_agent = "feedback-va", survey = "billing-survey", csat = true, opt_in = false }
/// ```
public struct PostSessionConfiguration: Codable, Sendable {
    /// A virtual agent of `virtual_agents` that talks after the human agent ends the chat.
    public var virtualAgent: String?
    /// A survey of `surveys`.
    public var survey: String?
    public var csat: Bool?
    /// Whether the end user must opt in first.
    public var optIn: Bool?
}

/// A survey of the company (`surveys = { ["billing-survey"] = { ... } }`), by key. Its
/// number (`Survey.id`) is `id` when given, else its key's place in sorted order, from 1.
public struct SurveyConfiguration: Codable, Sendable {
    public struct Question: Codable, Sendable {
        public var id: Int
        public var type: SurveyQuestionType
        public var text: LocalizedText
        public var required: Bool?
        /// The choices of an `enumeration`: each a string or `{ value, label }`, as a custom
        /// form's options are; end users get their values (a survey's options are strings on
        /// the wire, seed 000).
        public var options: [CustomFormQuestionOption]?
        /// The bounds of a `numeric_scale` (default 0 to 10).
        public var min: Int?
        public var max: Int?
    }

    public var id: Int?
    public var signOffDisplayText: LocalizedText?
    public var questions: [Question]
}

extension SandboxConfiguration {
    /// The surveys by key, each with its number.
    var numberedSurveys: [(key: String, id: Int, survey: SurveyConfiguration)] {
        (surveys ?? [:]).keys.sorted().enumerated().compactMap { index, key in
            surveys?[key].map { (key, $0.id ?? index + 1, $0) }
        }
    }

    /// The settings in force on a queue: the company's, then each queue from the top one
    /// down to `menuID`, key by key. Unknown queues get the company's.
    func postSessionSettings(forMenu menuID: Int) -> PostSessionSettings {
        let surveyIDs = Dictionary(numberedSurveys.map { ($0.key, $0.id) }, uniquingKeysWith: { first, _ in first })
        func settings(_ configuration: PostSessionConfiguration?) -> PostSessionSettings {
            PostSessionSettings(virtualAgentId: configuration?.virtualAgent, surveyId: configuration?.survey.flatMap { surveyIDs[$0] },
                                csat: configuration?.csat, optIn: configuration?.optIn)
        }
        let chain = Self.path(to: menuID, in: menus ?? []) ?? []
        return PostSessionSettings.effective([settings(company.postSession)] + chain.map { settings($0.postSession) })
    }

    /// The menus from a top one down to the menu `id`, or nil when it is not in `menus`.
    static func path(to id: Int, in menus: [MenuConfiguration]) -> [MenuConfiguration]? {
        for menu in menus {
            if menu.id == id { return [menu] }
            if let below = path(to: id, in: menu.children ?? []) { return [menu] + below }
        }
        return nil
    }

    /// A survey by number, as an end user of `language` reads it.
    public func survey(id: Int, language: String) -> Survey? {
        guard let found = numberedSurveys.first(where: { $0.id == id }) else { return nil }
        let fallback = "en"
        return Survey(id: id, lang: language,
                      questions: found.survey.questions.map { question in
                          SurveyQuestion(id: question.id, type: question.type,
                                         text: question.text.text(language, fallback: fallback) ?? "",
                                         required: question.required ?? false, options: question.options?.map(\.value),
                                         min: question.min, max: question.max)
                      },
                      signOffDisplayText: found.survey.signOffDisplayText?.text(language, fallback: fallback))
    }

    /// Post-session settings name virtual agents and surveys that exist; surveys have
    /// distinct numbers, questions distinct ids and what their types need.
    func postSessionProblems() -> [String] {
        var problems: [String] = []
        var places: [(String, PostSessionConfiguration)] = company.postSession.map { [("company.post_session", $0)] } ?? []
        places += allMenus.compactMap { menu in menu.postSession.map { ("menus[id \(menu.id)].post_session", $0) } }
        for (field, settings) in places {
            if let id = settings.virtualAgent, virtualAgents?[id] == nil {
                problems.append("\(field).virtual_agent: there is no virtual agent '\(id)'"
                                + Suggestion.didYouMean(id, among: Array((virtualAgents ?? [:]).keys)))
            }
            if let key = settings.survey, surveys?[key] == nil {
                problems.append("\(field).survey: there is no survey '\(key)'"
                                + Suggestion.didYouMean(key, among: Array((surveys ?? [:]).keys)))
            }
        }
        var numbers = Set<Int>()
        for (key, id, survey) in numberedSurveys {
            if !numbers.insert(id).inserted { problems.append("surveys[\(key)].id: \(id) is used twice") }
            if survey.questions.isEmpty { problems.append("surveys[\(key)].questions: at least one") }
            var questionIDs = Set<Int>()
            for question in survey.questions {
                let field = "surveys[\(key)].questions[id \(question.id)]"
                if !questionIDs.insert(question.id).inserted { problems.append("\(field): the id is used twice") }
                if question.type == .enumeration, (question.options ?? []).isEmpty {
                    problems.append("\(field).options: an enumeration question needs options")
                }
                if question.type == .numericScale, (question.min ?? 0) > (question.max ?? 10) {
                    problems.append("\(field): min must not be above max")
                }
            }
        }
        return problems
    }
}
