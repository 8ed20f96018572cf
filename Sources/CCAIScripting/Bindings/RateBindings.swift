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
    static func module(_ ccai: CCAI) -> LuaModule {
        var rate = LuaModule(name: "ccai.rate")
        rate.function("get_survey", LuaSignature(
            "The survey of a session's queue, in its language.",
            parameters: ["request: { communication_id: integer, communication_type: \"chats\"|\"calls\" }"], returns: ["ccai.Survey"])) { call in
            let (id, type) = try communication(call, also: [])
            let service = try SDKBindings.require(ccai.rateService, call)
            return try SDKBindings.sdk(call) { try await service.getSurvey(communicationId: id, communicationType: type) }
        }
        rate.function("submit_survey", LuaSignature(
            "Submits survey answers { [question_id] = \"value\" }: every problem is named (invalid_argument); twice is a conflict.",
            parameters: ["request: { communication_id: integer, communication_type: \"chats\"|\"calls\", answers: table<integer, string> }"])) { call in
            let (id, type) = try communication(call, also: ["answers"])
            let answers = try surveyAnswers(call)
            let service = try SDKBindings.require(ccai.rateService, call)
            return try SDKBindings.sdk(call, {
                try await service.submitSurvey(communicationId: id, communicationType: type, answers: SurveyRequest(answers: answers))
            }, push: { _, _ in })
        }
        rate.function("rate", LuaSignature(
            "Submits a CSAT rating from 1 to 5 with optional feedback; twice is a conflict.",
            parameters: ["request: { communication_id: integer, communication_type: \"chats\"|\"calls\", rating: integer, feedback: string? }"])) { call in
            let (id, type) = try communication(call, also: ["rating", "feedback"])
            let options = try call.options(1, "request")
            guard let rating = try options.integer("rating") else {
                throw call.argumentError(1, "request.rating", "an integer from 1 to 5 expected")
            }
            guard (1...5).contains(rating) else {
                throw call.argumentError(1, "request.rating", "an integer from 1 to 5 expected, got \(rating)")
            }
            let request = RatingRequest(rating: Int(rating), feedback: try options.string("feedback"))
            let service = try SDKBindings.require(ccai.rateService, call)
            let recorder = call.context.attachment(SDKMetricsRecorder.self)
            return try SDKBindings.sdk(call, {
                try await service.rate(communicationId: id, communicationType: type, request: request)
                recorder?.rated(Int(rating))
            }, push: { _, _ in })
        }
        rate.function("clear_rate_target", LuaSignature("Forgets the session awaiting feedback.")) { call in
            try SDKBindings.require(ccai.rateService, call).clearRateTarget()
            return .none
        }
        rate.function("get_rate_target", LuaSignature(
            "The session awaiting feedback (the last that ended with a post-session flow), until clear_rate_target.",
            returns: ["{ communication_id: integer, communication_type: string }?"])) { call in
            guard let target = try SDKBindings.require(ccai.rateService, call).rateTarget else {
                return call.returning(.nil)
            }
            var table = LuaTable()
            table["communication_id"] = .integer(Int64(target.communicationId))
            table["communication_type"] = .string(target.communicationType)
            return call.returning(.table(table))
        }
        return rate
    }

    /// `communication_id` (an integer) and `communication_type` (`chats` by default; one
    /// of ``RateService/ratedTypes``); the request's other fields are `also` (another is
    /// refused, named).
    private static func communication(_ call: LuaCall, also: Set<String>) throws -> (Int, String) {
        let options = try call.checkedOptions(1, "request", known: also.union(["communication_id", "communication_type"]))
        guard let id = try options.integer("communication_id") else {
            throw call.argumentError(1, "request.communication_id", "an integer expected")
        }
        let type = try options.string("communication_type") ?? CommunicationType.chats.rawValue
        if let problem = RateService.problem(type) { throw call.argumentError(1, "request.communication_type", problem) }
        return (Int(id), type)
    }

    /// `answers = { [question_id] = "value" }`: integer keys (or digit strings), string or
    /// number values.
    private static func surveyAnswers(_ call: LuaCall) throws -> [Int: String] {
        let options = try call.options(1, "request")
        guard let table = try options.value("answers").tableValue else {
            throw call.argumentError(1, "request.answers", "a table { [question_id] = \"value\" } expected")
        }
        var answers: [Int: String] = [:]
        for (key, value) in table.entries {
            guard let id = key.integerValue.map(Int.init) ?? key.stringValue.flatMap({ Int($0) }) else {
                throw call.argumentError(1, "request.answers", "question ids are integers, got '\(key.description)'")
            }
            switch value {
            case .string(let text): answers[id] = text
            case .integer(let number): answers[id] = String(number)
            case .number(let number): answers[id] = String(number)
            case .boolean(let flag): answers[id] = flag ? "true" : "false"
            default:
                throw call.argumentError(1, "request.answers[\(id)]", "a string expected, got \(value.typeName)")
            }
        }
        return answers
    }
}
