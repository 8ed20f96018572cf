import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.rate` (seed 000's `rateService`): `get_survey`, `submit_survey`, `rate`,
/// `clear_rate_target`, `get_rate_target`.
///
/// ```lua
/// local survey = ccai.rate.get_survey{ communication_id = chat.id, communication_type = "chats" }
/// ccai.rate.submit_survey{ communication_id = chat.id, communication_type = "chats",
///                          answers = { [survey.questions[1].id] = "5" } }
/// ccai.rate.rate{ communication_id = chat.id, communication_type = "chats", rating = 5, feedback = "quick" }
/// ```
enum RateBindings {
    static let rows: [Binding<RateService>] = [
        Binding("get_survey", "The survey of a session's queue, in its language.", getSurvey, returns: [.model(Survey.self)]),
        Binding("submit_survey", "Submits survey answers { [question_id] = \"value\" }: every problem is named (invalid_argument); "
                + "twice is a conflict.", submitSurvey),
        Binding("rate", "Submits a CSAT rating from 1 to 5 with optional feedback; twice is a conflict.", rate),
        Binding("clear_rate_target", "Forgets the session awaiting feedback.", clearRateTarget),
        Binding("get_rate_target", "The session awaiting feedback (the last that ended with a post-session flow), until "
                + "clear_rate_target.", getRateTarget, returns: [.model(RateTargetResult.self, optional: true)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.rate")
        module.functions(rows) { try SDKBindings.require(ccai.rateService, $0) }
        return module
    }

    static func getSurvey(_ service: RateService, _ request: Communication, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) {
            try await service.getSurvey(communicationId: request.communicationId, communicationType: request.type)
        }
    }

    static func submitSurvey(_ service: RateService, _ request: SurveySubmission, _ call: LuaCall) throws -> LuaReturn {
        let answers = SurveyRequest(answers: try request.answers.values().get())
        return try SDKBindings.sdk(call, {
            try await service.submitSurvey(communicationId: request.communicationId, communicationType: request.type, answers: answers)
        }, push: { _, _ in })
    }

    static func rate(_ service: RateService, _ request: Rating, _ call: LuaCall) throws -> LuaReturn {
        let recorder = call.context.attachment(SDKMetricsRecorder.self)
        let rating = RatingRequest(rating: request.rating, feedback: request.feedback)
        return try SDKBindings.sdk(call, {
            try await service.rate(communicationId: request.communicationId, communicationType: request.type, request: rating)
            recorder?.rated(request.rating)
        }, push: { _, _ in })
    }

    static func clearRateTarget(_ service: RateService, _: NoArguments, _: LuaCall) throws -> LuaReturn {
        service.clearRateTarget()
        return .none
    }

    static func getRateTarget(_ service: RateService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let target = service.rateTarget.map {
            RateTargetResult(communicationId: $0.communicationId, communicationType: $0.communicationType)
        }
        return call.returning(try target.map { try LuaEncoder().encode($0) } ?? .nil)
    }
}

/// The session a rating or survey is for: `communication_id`, and `communication_type`
/// (`chats` by default; one of ``RateService/ratedTypes``).
protocol RatedCommunication: BindingArguments {
    var communicationId: Int { get }
    var communicationType: CommunicationType? { get }
}

extension RatedCommunication {
    static var layout: ArgumentLayout { .table("request") }
    var type: String { (communicationType ?? .chats).rawValue }
    var communicationProblem: ArgumentProblem? {
        RateService.problem(type).map { ArgumentProblem("communication_type", $0) }
    }
}

/// `ccai.rate.get_survey`'s request.
struct Communication: RatedCommunication {
    var communicationId: Int
    var communicationType: CommunicationType?

    func problem() -> ArgumentProblem? { communicationProblem }
}

/// `ccai.rate.submit_survey`'s request.
struct SurveySubmission: RatedCommunication {
    var communicationId: Int
    var communicationType: CommunicationType?
    var answers: SurveyAnswers

    func problem() -> ArgumentProblem? {
        if let problem = communicationProblem { return problem }
        if case .failure(let problem) = answers.values() { return problem }
        return nil
    }
}

/// `ccai.rate.rate`'s request.
struct Rating: RatedCommunication {
    var communicationId: Int
    var communicationType: CommunicationType?
    var rating: Int
    var feedback: String?

    func problem() -> ArgumentProblem? {
        if let problem = communicationProblem { return problem }
        guard (1...5).contains(rating) else { return ArgumentProblem("rating", "an integer from 1 to 5 expected, got \(rating)") }
        return nil
    }
}

/// What `ccai.rate.get_rate_target` returns.
struct RateTargetResult: Codable {
    var communicationId: Int
    var communicationType: String
}

/// `answers = { [question_id] = "value" }`: integer keys (or digit strings), string, number
/// or boolean values, read as the script wrote them.
struct SurveyAnswers: Decodable {
    var table: LuaValue

    init(from decoder: Decoder) throws {
        table = try decoder.singleValueContainer().decode(LuaValue.self)
    }

    /// The answers by question id, or what is wrong with them.
    func values() -> Result<[Int: String], ArgumentProblem> {
        guard let table = table.tableValue else {
            return .failure(ArgumentProblem("answers", "a table { [question_id] = \"value\" } expected"))
        }
        var answers: [Int: String] = [:]
        for (key, value) in table.entries {
            guard let id = key.integerValue.map(Int.init) ?? key.stringValue.flatMap({ Int($0) }) else {
                return .failure(ArgumentProblem("answers", "question ids are integers, got '\(key.description)'"))
            }
            switch value {
            case .string(let text): answers[id] = text
            case .integer(let number): answers[id] = String(number)
            case .number(let number): answers[id] = String(number)
            case .boolean(let flag): answers[id] = flag ? "true" : "false"
            default: return .failure(ArgumentProblem("answers[\(id)]", "a string expected, got \(value.typeName)"))
            }
        }
        return .success(answers)
    }
}
