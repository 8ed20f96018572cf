import Foundation
import LuaRuntime
import Testing

@Suite struct ValueTests {
    /// Pushes `value` into Lua and reads it back.
    private func roundTrip(_ value: LuaValue) async throws -> LuaValue {
        let state = try makeState()
        return try await state.withContext { lua in
            lua.setGlobal("v", value)
            return try lua.evaluate("return v").first ?? .nil
        }
    }

    @Test(arguments: [
        LuaValue.nil, .boolean(true), .boolean(false), .integer(0), .integer(Int64.max), .integer(Int64.min),
        .number(1.5), .number(-0.25), .string(""), .string("héllo wörld ✓"), .data(Data([0, 1, 0xFF, 0xFE, 0])),
        ["a": 1, "b": ["x", "y"], "c": ["d": true]], [1, 2, 3],
    ])
    func everyTypeRoundTrips(_ value: LuaValue) async throws {
        #expect(try await roundTrip(value) == value)
    }

    @Test func binaryStringsKeepEveryByte() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            lua.setGlobal("bytes", .data(Data([0x41, 0x00, 0x42, 0xC3])))
            return try lua.evaluate("return #bytes, bytes:byte(2), bytes:byte(4)")
        }
        #expect(results == [4, 0, 195])
    }

    @Test func luaTypesAreReadAsData() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            try lua.evaluate("return 3, 3.0, 2^63, 'x', {1, 2, nil, 4, k = 'v'}, nil, false")
        }
        #expect(results[0] == .integer(3))
        #expect(results[1] == .number(3.0))
        #expect(results[2] == .number(9.223372036854775808e18))
        #expect(results[3] == "x")
        var table = LuaTable(sequence: [1, 2])
        table[.integer(4)] = 4
        table["k"] = "v"
        #expect(results[4] == .table(table))
        #expect(results[5] == .nil)
        #expect(results[6] == false)
    }

    @Test func tableCyclesAndFunctionsCannotBecomeData() async throws {
        let state = try makeState()
        await state.withContext { lua in
            _ = try? lua.evaluate("cyclic = {}; cyclic.self = cyclic; withFunction = { handler = { fn = print } }")
            #expect(lua.global("cyclic") == .nil)
            #expect(lua.global("withFunction") == .nil)
        }
        await state.withContext { lua in
            lua.register("probe") { call in
                do {
                    _ = try call.value(1, "value")
                    return call.returning("converted")
                } catch let error as LuaErrorValue {
                    return call.returning(.string(error.message))
                }
            }
            let messages = try? lua.evaluate("return probe(cyclic), probe(withFunction)")
            #expect(messages?[0].stringValue?.contains("table contains itself") == true)
            #expect(messages?[1].stringValue?.contains("cannot convert a function to data (at 'handler.fn')") == true)
        }
    }

    /// Issue 38: a table used twice at each of 26 levels is 2^26 tables as data. The copy
    /// stops at ``LuaStack/maximumCopyBytes`` (it ran 25 s to 1.3 GB, past every budget and
    /// Ctrl-C); a large value that is a plain tree still converts.
    @Test func aTableSharedManyTimesOverIsNotCopiedPastTheBound() async throws {
        // Copying 64 MiB and converting 100,000 tables take seconds under ThreadSanitizer: no
        // time budget (what is tested is the copy's bound).
        let state = try makeState(limits: LuaLimits(memoryBytes: 64 << 20, instructions: 0, seconds: 0))
        await state.withContext { lua in
            lua.register("probe") { call in
                do {
                    guard case .table(let table) = try call.value(1, "value") else { return call.returning("not a table") }
                    return call.returning(.integer(Int64(table.sequence.count)))
                } catch let error as LuaErrorValue {
                    return call.returning(.string(error.message))
                }
            }
            let shared = try? lua.evaluate("local t = {} for i = 1, 26 do t = { t, t } end return probe(t)")
            #expect(shared?[0].stringValue?.contains("too large to copy: more than 64 MiB") == true, "\(String(describing: shared))")
            let tree = try? lua.evaluate("local t = {} for i = 1, 100000 do t[i] = { i, tostring(i) } end return probe(t)")
            #expect(tree?[0] == .integer(100_000))
        }
    }

    @Test func tablesConvertToAndFromSwiftCollections() {
        let dictionary: [String: LuaValue] = ["a": 1, "b": "x"]
        #expect(LuaValue(dictionary).dictionaryValue == dictionary)
        #expect(LuaValue(dictionary).arrayValue == nil)
        #expect(LuaValue([1, 2, 3]).arrayValue == [1, 2, 3])
        #expect(LuaValue([1, 2, 3]).dictionaryValue == nil)
        #expect(LuaValue.table(LuaTable()).arrayValue == [])
        #expect(LuaValue.table(LuaTable()).dictionaryValue == [:])
    }

    @Test func tableEditsKeepTheSequenceContiguous() {
        var table = LuaTable()
        table[.integer(2)] = "b"
        #expect(table.sequence.isEmpty)
        table[.integer(1)] = "a"
        #expect(table.sequence == ["a", "b"])
        table[.number(2.0)] = nil
        #expect(table.sequence == ["a"])
        table["name"] = "x"
        #expect(table.count == 2)
        #expect(LuaValue.table(table)["name"] == "x")
        #expect(LuaValue.table(table)[1] == "a")
    }

    /// `literal()` reads as Lua source: strings quoted and escaped, names bare, other keys
    /// bracketed, deep tables and long text cut.
    @Test func literalsReadAsLuaSource() {
        let value: LuaValue = ["code": 7, "end": "a\"b\n", "list": [1, 2.5, true], "deep": ["a": ["b": ["c": 1]]]]
        #expect(value.literal() == #"{ code = 7, deep = { a = { b = {...} } }, ["end"] = "a\"b\n", list = { 1, 2.5, true } }"#)
        #expect(LuaValue.table(LuaTable()).literal() == "{}")
        #expect(LuaValue.string("x").literal() == #""x""#)
        #expect(LuaValue.array(Array(repeating: "long", count: 200)).literal(limit: 20) == #"{ "long", "long", "l..."#)
    }
}
