import CLua
import CLuaShim
import Foundation

/// The fields of a table argument (`ccai.chat.wait_for(name, { timeout = 10 })`), read
/// raw (no metamethods), with errors that name the field:
/// `bad argument #2 to 'wait_for' (field 'timeout': number expected, got string)`.
public struct LuaOptions {
    let call: LuaCall
    let index: Int
    let name: String?

    private var isAbsent: Bool { call.isNil(index) }

    /// Pushes the field's value and runs `body` with it on top; pops it afterwards.
    private func withField<T>(_ key: String, _ body: (Int32) throws -> T) rethrows -> T {
        let L = call.L
        if isAbsent {
            lua_pushnil(L)
        } else {
            LuaStack(L).push(key)
            lua_rawget(L, Int32(index))
        }
        defer { lrt_pop(L, 1) }
        return try body(lua_gettop(L))
    }

    private func fieldError(_ key: String, _ problem: String) -> LuaErrorValue {
        call.argumentError(index, name, "field '\(key)': \(problem)")
    }

    private func typeError(_ key: String, _ top: Int32, expected: String) -> LuaErrorValue {
        fieldError(key, "\(expected) expected, got \(LuaStack(call.L).typeName(at: top))")
    }

    /// The table's keys that are not in `known` (a non-string key as its Lua text), in
    /// no particular order; none when the argument is absent or not a table. A function
    /// that must not ignore a misspelt field (`{ token = ... }` for `{ data = ... }`)
    /// refuses these.
    public func unknownFields(known: Set<String>) -> [String] {
        let L = call.L
        guard !isAbsent, lua_type(L, Int32(index)) == LUA_TTABLE, lua_checkstack(L, 3) != 0 else { return [] }
        var unknown: [String] = []
        lua_pushnil(L)
        while lua_next(L, Int32(index)) != 0 {
            if lua_type(L, -2) == LUA_TSTRING, let text = lua_tolstring(L, -2, nil) {
                let key = String(cString: text)
                if !known.contains(key) { unknown.append(key) }
            } else {
                unknown.append("[\(LuaStack(L).typeName(at: -2))]")
            }
            lrt_pop(L, 1)
        }
        return unknown
    }

    /// Whether the field is present (not nil).
    public func has(_ key: String) -> Bool {
        withField(key) { lua_type(call.L, $0) != LUA_TNIL }
    }

    public func number(_ key: String) throws -> Double? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TNUMBER: return lrt_tonumber(call.L, top, nil)
            default: throw typeError(key, top, expected: "number")
            }
        }
    }

    public func integer(_ key: String) throws -> Int64? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TNUMBER:
                var isInteger: Int32 = 0
                let value = lrt_tointeger(call.L, top, &isInteger)
                guard isInteger != 0 else { throw fieldError(key, "number has no integer representation") }
                return value
            default: throw typeError(key, top, expected: "integer")
            }
        }
    }

    public func string(_ key: String) throws -> String? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TSTRING, LUA_TNUMBER: return try LuaStack(call.L).value(at: top).description
            default: throw typeError(key, top, expected: "string")
            }
        }
    }

    /// A string field's bytes, binary-safe (file contents).
    public func data(_ key: String) throws -> Data? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TSTRING: return LuaStack(call.L).data(at: top)
            default: throw typeError(key, top, expected: "string")
            }
        }
    }

    public func boolean(_ key: String) throws -> Bool? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TBOOLEAN: return lua_toboolean(call.L, top) != 0
            default: throw typeError(key, top, expected: "boolean")
            }
        }
    }

    public func function(_ key: String) throws -> LuaReference? {
        try withField(key) { top in
            switch lua_type(call.L, top) {
            case LUA_TNIL: return nil
            case LUA_TFUNCTION:
                lua_pushvalue(call.L, top)
                return LuaReference(popping: call.L, core: call.core)
            default: throw typeError(key, top, expected: "function")
            }
        }
    }

    /// Any field as data.
    public func value(_ key: String) throws -> LuaValue {
        try withField(key) { top in
            do {
                return try LuaStack(call.L).value(at: top)
            } catch let error as LuaConversionError {
                throw fieldError(key, error.message)
            }
        }
    }
}
