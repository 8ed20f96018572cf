import CCAIWire
import Testing

/// Answers checked against question types and required flags.
@Suite struct FormAnswersTests {
    private func problem(_ type: CustomFormQuestionType, _ value: String, required: Bool = false,
                         options: [String] = [], min: Double? = nil, max: Double? = nil) -> String? {
        let question = CustomFormQuestion(id: 1, type: type, text: "Q", required: required,
                                          options: options.map { CustomFormQuestionOption(value: $0) }, min: min, max: max)
        return FormAnswers.problems([.init(questionId: 1, value: value)], for: [question]).first
    }

    @Test func eachTypeTakesWhatItShould() {
        #expect(problem(.text, "Jane") == nil && problem(.text, "two\nlines") != nil)
        #expect(problem(.longText, "two\nlines") == nil && problem(.longText, String(repeating: "x", count: 10_001)) != nil)
        #expect(problem(.email, "jane@example.test") == nil)
        for bad in ["jane", "jane@", "@example.test", "jane@example", "jane doe@example.test", "a@b@c.d"] {
            #expect(problem(.email, bad) != nil, "\(bad)")
        }
        #expect(problem(.phone, "+1 (415) 555-0100") == nil && problem(.phone, "12345") != nil && problem(.phone, "call me") != nil)
        #expect(problem(.number, "42.5") == nil && problem(.number, "forty") != nil)
        #expect(problem(.number, "17", min: 18) == "question 1 (Q): at least 18 expected, got 17")
        #expect(problem(.number, "121", max: 120) != nil && problem(.number, "inf") != nil)
        #expect(problem(.date, "2026-02-28") == nil && problem(.date, "2026-02-30") != nil && problem(.date, "28/02/2026") != nil)
        #expect(problem(.dropdown, "tablet", options: ["phone", "tablet"]) == nil && problem(.radio, "fax", options: ["sms"]) != nil)
        #expect(problem(.multipleChoice, "a, b", options: ["a", "b"]) == nil && problem(.multipleChoice, "a,z", options: ["a"]) != nil)
        #expect(problem(.checkbox, "false") == nil && problem(.checkbox, "false", required: true) != nil && problem(.checkbox, "yes") != nil)
    }

    @Test func requiredQuestionsUnknownQuestionsAndRepeats() {
        let questions = [CustomFormQuestion(id: 1, type: .text, text: "Name", required: true),
                         CustomFormQuestion(id: 2, type: .text, text: "Nickname")]
        #expect(FormAnswers.problems([], for: questions) == ["question 1 (Name): required"])
        #expect(FormAnswers.problems([.init(questionId: 1, value: "  ")], for: questions) == ["question 1 (Name): required"])
        #expect(FormAnswers.problems([.init(questionId: 2, value: "")], for: questions) == ["question 1 (Name): required"],
                "an optional question may be left empty")
        #expect(FormAnswers.problems([.init(questionId: 1, value: "Jo"), .init(questionId: 7, value: "x")], for: questions)
                == ["question 7: the form has no such question"])
        #expect(FormAnswers.problems([.init(questionId: 1, value: "Jo"), .init(questionId: 1, value: "Al")], for: questions)
                == ["question 1 (Name): answered twice"])
    }
}
