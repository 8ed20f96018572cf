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
    func validateForms() throws {
        var ids = Set<Int>()
        for form in customForms ?? [] {
            guard ids.insert(form.id).inserted else { throw ConfigurationError(message: "custom_forms: the id \(form.id) is used twice") }
            try Self.validate(form.questions, at: "custom_forms[id \(form.id)]")
        }
        var externalIDs = Set<String>()
        for form in webForms ?? [] {
            guard !form.externalFormId.isEmpty, externalIDs.insert(form.externalFormId).inserted else {
                throw ConfigurationError(message: "web_forms: the external_form_id '\(form.externalFormId)' is empty or used twice")
            }
            try Self.validate(form.questions ?? [], at: "web_forms[\(form.externalFormId)]")
        }
    }

    private static func validate(_ questions: [CustomFormQuestion], at path: String) throws {
        var ids = Set<Int>()
        for question in questions {
            let field = "\(path).questions[id \(question.id)]"
            guard ids.insert(question.id).inserted else { throw ConfigurationError(message: "\(field): the id is used twice") }
            if question.type == .unknown {
                throw ConfigurationError(message: "\(field).type: " + CustomFormQuestionType.allCases.filter { $0 != .unknown }
                    .map(\.rawValue).joined(separator: ", ") + " expected")
            }
            if question.type.hasOptions, (question.options ?? []).isEmpty {
                throw ConfigurationError(message: "\(field).options: a \(question.type.rawValue) question needs options")
            }
        }
    }
}
