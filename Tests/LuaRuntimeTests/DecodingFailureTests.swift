import Foundation
import LuaRuntime
import Testing

@Suite struct DecodingFailureTests {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) { (stringValue, self.intValue) = ("Index \(intValue)", intValue) }
    }

    @Test func aMissingFieldIsNamedByItsPathInSnakeCase() {
        let error = DecodingError.keyNotFound(Key(stringValue: "queueID"),
                                              .init(codingPath: [Key(stringValue: "menus"), Key(intValue: 2)], debugDescription: ""))
        let failure = DecodingFailure(error)
        #expect(failure.reason == .missing && failure.field == "menus[2].queue_id")
        #expect(failure.sentence() == "menus[2].queue_id is required")
        #expect(failure.sentence { "field '\($0)'" } == "field 'menus[2].queue_id' is required")
    }

    @Test func aWrongValueKeepsTheDecodersWordsAndWhatWasExpected() {
        let context = DecodingError.Context(codingPath: [Key(stringValue: "menuId")], debugDescription: "number expected, got string")
        let failure = DecodingFailure(.typeMismatch(Int.self, context))
        #expect(failure.reason == .wrongType(expected: "an integer") && failure.sentence() == "menu_id: number expected, got string")
        #expect(DecodingFailure(.valueNotFound(String.self, context)).reason == .null(expected: "a string"))
        let whole = DecodingFailure(.dataCorrupted(.init(codingPath: [], debugDescription: "not JSON")))
        #expect(whole.reason == .invalid && whole.field.isEmpty)
    }

    @Test func aJSONStringEscapesLineSeparatorsToo() {
        var text = ""
        LuaJSON.writeString("a\"b\\c\n\u{1}\u{2028}é", into: &text)
        #expect(text == #""a\"b\\c\n\u0001\u2028é""#)
    }
}
