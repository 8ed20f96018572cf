import Foundation

/// How a form question is answered (seed 003's `CustomFormQuestionType`; the cases are the
/// project's, the seeds name the type only). Every answer travels as a string.
public enum CustomFormQuestionType: String, Codable, Hashable, Sendable, CaseIterable {
    /// One line of text.
    case text
    /// Several lines of text.
    case longText = "long_text"
    case email
    /// A phone number: 7 to 15 digits, with `+`, spaces, dashes, dots or parentheses.
    case phone
    /// A number, within the question's `min` and `max` when it has them.
    case number
    /// A calendar date, `YYYY-MM-DD`.
    case date
    /// One of the question's option values.
    case dropdown
    /// One of the question's option values.
    case radio
    /// `"true"` or `"false"` (a required checkbox must be `"true"`).
    case checkbox
    /// Any option values, separated by commas.
    case multipleChoice = "multiple_choice"
    case unknown

    public init(from decoder: Decoder) throws {
        self = CustomFormQuestionType(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
    }

    /// Whether the question needs `options`.
    public var hasOptions: Bool { self == .dropdown || self == .radio || self == .multipleChoice }
}

/// A choice of a dropdown, radio or multiple-choice question.
///
/// A configuration writes it as `{ value = "phone", label = "Phone" }` or as the plain
/// string `"phone"` (its value, no label); survey options take the same two shapes.
public struct CustomFormQuestionOption: Codable, Equatable, Sendable {
    public var value: String
    public var label: String?

    enum CodingKeys: String, CodingKey {
        case value, label
    }

    public init(value: String, label: String? = nil) {
        self.value = value
        self.label = label
    }

    public init(from decoder: Decoder) throws {
        if let value = try? decoder.singleValueContainer().decode(String.self) {
            self.init(value: value)
            return
        }
        guard let container = try? decoder.container(keyedBy: CodingKeys.self) else {
            throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath,
                debugDescription: "an option is a string (\"phone\") or a table { value = \"phone\", label = \"Phone\" }"))
        }
        self.init(value: try container.decode(String.self, forKey: .value),
                  label: try container.decodeIfPresent(String.self, forKey: .label))
    }
}

/// A question of a custom form or a web form.
public struct CustomFormQuestion: Codable, Equatable, Sendable {
    public var id: Int
    public var type: CustomFormQuestionType
    public var text: String
    public var required: Bool
    public var options: [CustomFormQuestionOption]?
    public var placeholder: String?
    /// Bounds of a `number` answer.
    public var min: Double?
    public var max: Double?

    enum CodingKeys: String, CodingKey {
        case id, type, text, required, options, placeholder, min, max
    }

    /// `required` is false when absent.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        type = try container.decode(CustomFormQuestionType.self, forKey: .type)
        text = try container.decode(String.self, forKey: .text)
        required = try container.decodeIfPresent(Bool.self, forKey: .required) ?? false
        options = try container.decodeIfPresent([CustomFormQuestionOption].self, forKey: .options)
        placeholder = try container.decodeIfPresent(String.self, forKey: .placeholder)
        min = try container.decodeIfPresent(Double.self, forKey: .min)
        max = try container.decodeIfPresent(Double.self, forKey: .max)
    }

    public init(id: Int, type: CustomFormQuestionType, text: String, required: Bool = false,
                options: [CustomFormQuestionOption]? = nil, placeholder: String? = nil, min: Double? = nil, max: Double? = nil) {
        self.id = id
        self.type = type
        self.text = text
        self.required = required
        self.options = options
        self.placeholder = placeholder
        self.min = min
        self.max = max
    }
}

/// A custom form an agent sent (the `form` of a `form` chat message), or the one to fetch
/// (seed 003's `CustomForm`). `smartActionId` names the agent's request.
public struct CustomForm: Codable, Equatable, Sendable {
    public var id: Int
    public var name: String?
    public var title: String?
    public var subtitle: String?
    public var smartActionId: Int?
    public var image: String?
    public var header: String?
    public var footer: String?

    enum CodingKeys: String, CodingKey {
        case id, name, title, subtitle, image, header, footer
        case smartActionId = "smart_action_id"
    }

    public init(id: Int, name: String? = nil, title: String? = nil, subtitle: String? = nil, smartActionId: Int? = nil,
                image: String? = nil, header: String? = nil, footer: String? = nil) {
        self.id = id
        self.name = name
        self.title = title
        self.subtitle = subtitle
        self.smartActionId = smartActionId
        self.image = image
        self.header = header
        self.footer = footer
    }
}

/// A custom form's definition (`getCustomFormDetails`).
public struct CustomFormDetailsResponse: Codable, Equatable, Sendable {
    public var id: Int
    public var name: String?
    public var title: String?
    public var subtitle: String?
    public var header: String?
    public var footer: String?
    public var questions: [CustomFormQuestion]

    public init(id: Int, name: String? = nil, title: String? = nil, subtitle: String? = nil, header: String? = nil,
                footer: String? = nil, questions: [CustomFormQuestion]) {
        self.id = id
        self.name = name
        self.title = title
        self.subtitle = subtitle
        self.header = header
        self.footer = footer
        self.questions = questions
    }
}

/// The end user's answers to a custom form the agent sent (`submitCustomForm`).
///
/// ```swift
/// try await chat.submitCustomForm(request: SubmitCustomFormRequest(
///     smartActionId: 123, formResponse: [.init(questionId: 1, value: "John Doe")]))
/// ```
public struct SubmitCustomFormRequest: Codable, Equatable, Sendable {
    public struct Answer: Codable, Equatable, Sendable {
        public var questionId: Int
        public var value: String

        enum CodingKeys: String, CodingKey {
            case value
            case questionId = "question_id"
        }

        public init(questionId: Int, value: String) {
            self.questionId = questionId
            self.value = value
        }
    }

    public var smartActionId: Int
    public var formResponse: [Answer]

    enum CodingKeys: String, CodingKey {
        case smartActionId = "smart_action_id"
        case formResponse = "form_response"
    }

    public init(smartActionId: Int, formResponse: [Answer]) {
        self.smartActionId = smartActionId
        self.formResponse = formResponse
    }
}
