import CLua
import CLuaShim
import Foundation

/// Why a Lua value could not become ``LuaValue`` data.
struct LuaConversionError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Pushing and reading values on one thread's stack. Uses only API calls that cannot raise
/// (raw access, no metamethods), so it is safe from Swift frames.
struct LuaStack {
    let L: OpaquePointer
    static let maximumDepth = 100
    /// The most a value becomes as data, counted as ``LuaValue/heldBytes`` counts it: a
    /// table used in many places of another is copied at each, so a few shared tables
    /// (`t = { t, t }` 26 times) would otherwise be copied 2^26 times (issue 38).
    static let maximumCopyBytes = 64 << 20

    init(_ L: OpaquePointer) { self.L = L }

    var top: Int32 { lua_gettop(L) }

    /// The type name Lua's own messages use: `__name` for userdata that have one.
    func typeName(at index: Int32) -> String {
        let type = lua_type(L, index)
        if type == LUA_TNONE { return "no value" }
        if type == LUA_TUSERDATA, lua_getmetatable(L, index) != 0 {
            lua_pushstring(L, "__name")
            let name = lua_rawget(L, -2) == LUA_TSTRING ? string(at: -1) : nil
            lrt_pop(L, 2)
            if let name { return name }
        }
        return String(cString: lua_typename(L, type))
    }

    // MARK: Reading

    func string(at index: Int32) -> String? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(L, index, &length) else { return nil }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(validating: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    func data(at index: Int32) -> Data? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(L, index, &length) else { return nil }
        return Data(bytes: pointer, count: length)
    }

    /// The value at `index` as data; functions, userdata and threads cannot be converted.
    func value(at index: Int32) throws -> LuaValue {
        var visiting = Set<UnsafeRawPointer>()
        var budget = LuaStack.maximumCopyBytes
        return try value(at: lua_absindex(L, index), depth: 0, path: "", visiting: &visiting, budget: &budget)
    }

    private func value(at index: Int32, depth: Int, path: String, visiting: inout Set<UnsafeRawPointer>, budget: inout Int) throws
        -> LuaValue
    {
        let type = lua_type(L, index)
        budget -= type == LUA_TTABLE ? 64 : 16 + (type == LUA_TSTRING ? Int(lua_rawlen(L, index)) : 0)
        guard budget >= 0 else {
            throw LuaConversionError(message: "the value is too large to copy: more than \(LuaStack.maximumCopyBytes >> 20) MiB "
                                     + "as data (a table used in several places is copied at each)\(at(path))")
        }
        switch type {
        case LUA_TNIL, LUA_TNONE:
            return .nil
        case LUA_TBOOLEAN:
            return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .integer(lrt_tointeger(L, index, nil)) }
            return .number(lrt_tonumber(L, index, nil))
        case LUA_TSTRING:
            if let text = string(at: index) { return .string(text) }
            return .data(data(at: index) ?? Data())
        case LUA_TTABLE:
            guard depth < LuaStack.maximumDepth else {
                throw LuaConversionError(message: "table nested too deeply\(at(path))")
            }
            guard let pointer = lua_topointer(L, index), visiting.insert(pointer).inserted else {
                throw LuaConversionError(message: "table contains itself\(at(path))")
            }
            defer { visiting.remove(lua_topointer(L, index)!) }
            guard lua_checkstack(L, 4) != 0 else { throw LuaConversionError(message: "stack overflow") }
            var table = LuaTable()
            let length = lua_rawlen(L, index)
            table.sequence.reserveCapacity(Int(length))
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                let key = try value(at: lua_absindex(L, -2), depth: depth + 1, path: path, visiting: &visiting, budget: &budget)
                let child = path.isEmpty ? key.description : "\(path).\(key)"
                let element = try value(at: lua_absindex(L, -1), depth: depth + 1, path: child, visiting: &visiting, budget: &budget)
                table[key] = element
                lrt_pop(L, 1)
            }
            return .table(table)
        default:
            throw LuaConversionError(message: "cannot convert a \(typeName(at: index)) to data\(at(path))")
        }
    }

    private func at(_ path: String) -> String { path.isEmpty ? "" : " (at '\(path)')" }

    /// The value at `index` as data for inspection: functions, userdata and threads become
    /// their type name as a string (`"function"`); cycles and depth stop at `nil`.
    func shape(at index: Int32, depth: Int = 0) -> LuaValue {
        let index = lua_absindex(L, index)
        switch lua_type(L, index) {
        case LUA_TTABLE:
            guard depth < 8, lua_checkstack(L, 4) != 0 else { return .nil }
            var table = LuaTable()
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                let key = shape(at: -2, depth: depth + 1)
                if !key.isNil { table[key] = shape(at: -1, depth: depth + 1) }
                lrt_pop(L, 1)
            }
            return .table(table)
        case LUA_TFUNCTION, LUA_TUSERDATA, LUA_TTHREAD, LUA_TLIGHTUSERDATA:
            return .string(typeName(at: index))
        default:
            return (try? value(at: index)) ?? .nil
        }
    }

    /// `tostring` of the value at `index` (runs `__tostring` under protection).
    func describe(at index: Int32) -> String {
        let index = lua_absindex(L, index)
        var length = 0
        guard let pointer = lrt_tolstring(L, index, &length) else { return typeName(at: index) }
        let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        lrt_pop(L, 1)
        return text
    }

    // MARK: Pushing

    func push(_ value: LuaValue) {
        switch value {
        case .nil: lua_pushnil(L)
        case .boolean(let b): lua_pushboolean(L, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(L, i)
        case .number(let d): lua_pushnumber(L, d)
        case .string(let s): push(s)
        case .data(let d): push(d)
        case .table(let t): push(t)
        }
    }

    func push(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        }
    }

    func push(_ data: Data) {
        data.withUnsafeBytes { bytes in
            _ = lua_pushlstring(L, bytes.bindMemory(to: CChar.self).baseAddress, bytes.count)
        }
    }

    func push(_ table: LuaTable) {
        lua_checkstack(L, 3)
        lua_createtable(L, Int32(clamping: table.sequence.count), Int32(clamping: table.fields.count))
        for (offset, element) in table.sequence.enumerated() {
            push(element)
            lua_rawseti(L, -2, lua_Integer(offset + 1))
        }
        for (key, element) in table.fields {
            if case .nil = key { continue }
            if case .number(let d) = key, d.isNaN { continue }
            push(key)
            push(element)
            lua_rawset(L, -3)
        }
        if let name = table.className {
            // A class the state never defined leaves the table plain.
            if lua_getfield(L, lrt_registryindex(), name) == LUA_TTABLE {
                lua_setmetatable(L, -2)
            } else {
                lrt_pop(L, 1)
            }
        }
    }

    /// Pushes a structured error table with the error metatable.
    func pushError(_ error: LuaErrorValue, metatable: Int32) {
        push(error.table)
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(metatable))
        lua_setmetatable(L, -2)
    }
}
