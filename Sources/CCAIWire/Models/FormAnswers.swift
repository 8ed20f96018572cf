import Foundation

/// Checks answers against a form's questions: every answer names a question, every
/// required question is answered, and each value fits its question's type. Both sides
/// use it: the host before it submits, the platform when it receives.
///
/// ```swift
/// let problems = FormAnswers.problems([.init(questionId: 2, value: "not-an-email")], for: questions)
/// // ["question 2 (E-mail): an e-mail address expected, got 'not-an-email'"]
/// ```
public enum FormAnswers {
    public static func problems(_ answers: [SubmitCustomFormRequest.Answer], for questions: [CustomFormQuestion]) -> [String] {
        var problems: [String] = []
        let byID = Dictionary(questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var answered = Set<Int>()
        for answer in answers {
            guard let question = byID[answer.questionId] else {
                problems.append("question \(answer.questionId): the form has no such question")
                continue
            }
            guard answered.insert(answer.questionId).inserted else {
                problems.append("\(label(question)): answered twice")
                continue
            }
            if let problem = problem(answer.value, question) { problems.append("\(label(question)): \(problem)") }
        }
        for question in questions where question.required && !answered.contains(question.id) {
            problems.append("\(label(question)): required")
        }
        return problems
    }

    private static func label(_ question: CustomFormQuestion) -> String {
        "question \(question.id) (\(question.text))"
    }

    /// What is wrong with `value` for `question`, if anything.
    static func problem(_ value: String, _ question: CustomFormQuestion) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return question.required ? "required" : nil }
        if trimmed.utf8.count > FieldLimits.textBytes { return "at most \(FieldLimits.textBytes) bytes expected" }
        let options = Set((question.options ?? []).map(\.value))
        switch question.type {
        case .text:
            return trimmed.contains("\n") || trimmed.count > 1_000 ? "one line of at most 1000 characters expected" : nil
        case .longText:
            return trimmed.count > 10_000 ? "at most 10000 characters expected" : nil
        case .email:
            let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
            let valid = parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".")
                && !parts[1].hasSuffix(".") && !trimmed.contains(" ")
            return valid ? nil : "an e-mail address expected, got '\(value)'"
        case .phone:
            let digits = trimmed.filter(\.isNumber).count
            let allowed = trimmed.allSatisfy { $0.isNumber || "+-(). ".contains($0) }
            return allowed && (7...15).contains(digits) ? nil : "a phone number (7 to 15 digits) expected, got '\(value)'"
        case .number:
            guard let number = Double(trimmed), number.isFinite else { return "a number expected, got '\(value)'" }
            if let min = question.min, number < min { return "at least \(format(min)) expected, got \(trimmed)" }
            if let max = question.max, number > max { return "at most \(format(max)) expected, got \(trimmed)" }
            return nil
        case .date:
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.isLenient = false
            guard trimmed.count == 10, let date = formatter.date(from: trimmed), formatter.string(from: date) == trimmed else {
                return "a date YYYY-MM-DD expected, got '\(value)'"
            }
            return nil
        case .dropdown, .radio:
            return options.contains(trimmed) ? nil : "one of \(list(options)) expected, got '\(value)'"
        case .multipleChoice:
            let picked = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let unknown = picked.filter { !options.contains($0) }
            return unknown.isEmpty ? nil : "values among \(list(options)) expected, got '\(unknown.joined(separator: ", "))'"
        case .checkbox:
            guard trimmed == "true" || trimmed == "false" else { return "'true' or 'false' expected, got '\(value)'" }
            return question.required && trimmed != "true" ? "must be checked" : nil
        case .unknown:
            return nil
        }
    }

    private static func list(_ options: Set<String>) -> String {
        options.sorted().map { "'\($0)'" }.joined(separator: ", ")
    }

    private static func format(_ number: Double) -> String {
        Checked.integer(number).map(String.init) ?? String(number)
    }
}
