import Foundation
import LuaRuntime
import Testing

@Suite struct JSONTests {
    @Test func encodesDeterministically() throws {
        let value: LuaValue = ["b": [1, 2.5, "x"], "a": true, "c": ["nested": "q\"\n\u{1}"]]
        #expect(try LuaJSON.encode(value) == #"{"a":true,"b":[1,2.5,"x"],"c":{"nested":"q\"\n\u0001"}}"#)
        #expect(try LuaJSON.encode(.table(LuaTable())) == "{}")
        #expect(try LuaJSON.encode(["a": [1]], pretty: true) == "{\n  \"a\": [\n    1\n  ]\n}")
    }

    @Test func decodesEveryKind() throws {
        let value = try LuaJSON.decode(#" {"n": -12, "f": 1.5e2, "s": "\u00e9\ud83d\ude00\t", "t": true, "z": null, "a": [1, [] , {}]} "#)
        #expect(value["n"] == .integer(-12))
        #expect(value["f"] == .number(150))
        #expect(value["s"] == "é😀\t")
        #expect(value["t"] == true)
        #expect(value["z"] == nil)
        #expect(value["a"]?[1] == 1)
    }

    @Test(arguments: ["{", "[1,]", #"{"a" 1}"#, "01", "nul", #""\x""#, "[1] x", #""\ud800""#, ""])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: LuaJSON.Error.self) { try LuaJSON.decode(text) }
    }

    @Test func errorsSayWhere() {
        #expect(throws: LuaJSON.Error(message: "invalid JSON at byte 6: expected ':'")) {
            try LuaJSON.decode(#"{"a" 1}"#)
        }
    }

    @Test func refusesWhatJSONCannotHold() {
        #expect(throws: LuaJSON.Error.self) { try LuaJSON.encode(.number(.nan)) }
        #expect(throws: LuaJSON.Error.self) { try LuaJSON.encode(.data(Data([0xFF]))) }
        var mixed = LuaTable(sequence: [1])
        mixed["k"] = "v"
        #expect(throws: LuaJSON.Error.self) { try LuaJSON.encode(.table(mixed)) }
        #expect(throws: LuaJSON.Error.self) { try LuaJSON.encode(.table(LuaTable(fields: [.boolean(true): 1]))) }
    }
}
