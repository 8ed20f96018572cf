import CCAIWire
import Foundation

/// A web form of the company (docs/sdk-and-sandbox.md, configuration's `web_forms`): hosted by the company at
/// `url`, sent by agents with `agent.send_web_form{ external_form_id = ... }`. Its
/// `questions`, when given, are what the form-complete event's answers are checked against.
public struct WebFormConfiguration: Codable, Sendable {
    public var externalFormId: String
    public var title: String?
    public var url: String?
    public var questions: [CustomFormQuestion]?
}

extension SandboxConfiguration {
    /// A custom form by id.
    func customForm(_ id: Int) -> CustomFormDetailsResponse? {
        customForms?.first { $0.id == id }
    }

    /// A web form by external id.
    func webForm(_ externalID: String) -> WebFormConfiguration? {
        webForms?.first { $0.externalFormId == externalID }
    }

    /// Form ids are unique, questions have known types, unique ids and the options their
    /// types need.
    func formProblems() -> [String] {
        var problems: [String] = []
        var ids = Set<Int>()
        for form in customForms ?? [] {
            if !ids.insert(form.id).inserted { problems.append("custom_forms: the id \(form.id) is used twice") }
            problems += Self.problems(of: form.questions, at: "custom_forms[id \(form.id)]")
        }
        var externalIDs = Set<String>()
        for form in webForms ?? [] {
            if form.externalFormId.isEmpty || !externalIDs.insert(form.externalFormId).inserted {
                problems.append("web_forms: the external_form_id '\(form.externalFormId)' is empty or used twice")
            }
            problems += Self.problems(of: form.questions ?? [], at: "web_forms[\(form.externalFormId)]")
        }
        return problems
    }

    private static func problems(of questions: [CustomFormQuestion], at path: String) -> [String] {
        var problems: [String] = []
        var ids = Set<Int>()
        for question in questions {
            let field = "\(path).questions[id \(question.id)]"
            if !ids.insert(question.id).inserted { problems.append("\(field): the id is used twice") }
            if question.type == .unknown {
                problems.append("\(field).type: " + CustomFormQuestionType.allCases.filter { $0 != .unknown }
                    .map(\.rawValue).joined(separator: ", ") + " expected")
            }
            if question.type.hasOptions, (question.options ?? []).isEmpty {
                problems.append("\(field).options: a \(question.type.rawValue) question needs options")
            }
        }
        return problems
    }
}
