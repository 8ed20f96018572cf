import Foundation

/// Which web form to fetch: the agent's request (`smartActionId`) and the company's form
/// (`externalFormId`) (seed 003's `WebFormRequest`, without a signature on iOS).
public struct WebFormRequest: Codable, Equatable, Sendable {
    public var smartActionId: Int
    public var externalFormId: String
    /// The form's title, as the agent's message shows it.
    public var title: String?

    enum CodingKeys: String, CodingKey {
        case title
        case smartActionId = "smart_action_id"
        case externalFormId = "external_form_id"
    }

    public init(smartActionId: Int, externalFormId: String, title: String? = nil) {
        self.smartActionId = smartActionId
        self.externalFormId = externalFormId
        self.title = title
    }
}

/// A fetched web form: where to show it, its questions when the company declared them, and
/// the platform's signature, which `validateWebForm` checks and the form-complete event
/// must carry. Seed 003's `FormPayload` and `WebFormData` are folded into it.
public struct WebFormResponse: Codable, Equatable, Sendable {
    public var smartActionId: Int
    public var externalFormId: String
    public var title: String?
    public var url: String
    public var signature: String
    /// Unix seconds after which the signature is no longer valid.
    public var expiresAt: Double
    public var questions: [CustomFormQuestion]?

    enum CodingKeys: String, CodingKey {
        case title, url, signature, questions
        case smartActionId = "smart_action_id"
        case externalFormId = "external_form_id"
        case expiresAt = "expires_at"
    }

    public init(smartActionId: Int, externalFormId: String, title: String?, url: String, signature: String, expiresAt: Double,
                questions: [CustomFormQuestion]?) {
        self.smartActionId = smartActionId
        self.externalFormId = externalFormId
        self.title = title
        self.url = url
        self.signature = signature
        self.expiresAt = expiresAt
        self.questions = questions
    }
}

/// `validateWebForm`'s answer.
public struct WebFormValidation: Codable, Equatable, Sendable {
    public var valid: Bool
    /// Why it is not valid.
    public var reason: String?

    public init(valid: Bool, reason: String? = nil) {
        self.valid = valid
        self.reason = reason
    }
}

/// The form-complete event (`sendMessage(.formComplete(payload:))`, seed 001): the web
/// form's signature and the outcome.
///
/// ```swift
/// let payload = FormCompletePayload(signature: form.signature, data: FormCompleteData(
///     smartActionId: form.smartActionId, status: .success, timestamp: "2026-11-30T12:00:00Z",
///     details: FormCompleteDataDetails(message: "Form submitted successfully")))
/// ```
public struct FormCompletePayload: Codable, Equatable, Sendable {
    public var type: String
    public var signature: String
    public var data: FormCompleteData

    public init(type: String = "form_complete", signature: String, data: FormCompleteData) {
        self.type = type
        self.signature = signature
        self.data = data
    }
}

public struct FormCompleteData: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Equatable, Sendable, CaseIterable {
        case success
        case failure
    }

    public var smartActionId: Int
    public var status: Status
    /// ISO 8601.
    public var timestamp: String
    public var details: FormCompleteDataDetails

    enum CodingKeys: String, CodingKey {
        case status, timestamp, details
        case smartActionId = "smart_action_id"
    }

    public init(smartActionId: Int, status: Status, timestamp: String, details: FormCompleteDataDetails) {
        self.smartActionId = smartActionId
        self.status = status
        self.timestamp = timestamp
        self.details = details
    }
}

/// What the form-complete event says: a message and, in this project, the answers the web
/// form took (checked against its questions).
public struct FormCompleteDataDetails: Codable, Equatable, Sendable {
    public var message: String?
    public var answers: [SubmitCustomFormRequest.Answer]?

    public init(message: String? = nil, answers: [SubmitCustomFormRequest.Answer]? = nil) {
        self.message = message
        self.answers = answers
    }
}
