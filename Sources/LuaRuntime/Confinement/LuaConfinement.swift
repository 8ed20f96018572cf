import CLua
import CLuaShim
import Foundation

/// What a confined state offers scripts beyond the safe standard libraries.
///
/// The globals are the base library without `dofile`/`loadfile`, with `load` in text mode
/// only (defaulting to the caller's environment); `string` without `dump`, `table`,
/// `math`, `utf8`, `coroutine`; `os` with `time`, `clock`, `date`, `difftime` only; no
/// `io`, `debug` or `package`. The string metatable is protected, `collectgarbage` only
/// answers `"count"`, and `require` finds host modules and pure-Lua files under
/// ``modulePaths`` only.
///
/// ```swift
/// let lua = try LuaState(confinement: LuaConfinement(modulePaths: ["/srv/plugins/acme"]))
/// ```
public struct LuaConfinement: Sendable {
    /// Folders where `require("a.b")` looks for `a/b.lua` and `a/b/init.lua`.
    public var modulePaths: [String]
    /// Where `print` writes (its arguments joined by tabs).
    public var print: @Sendable (String) -> Void
    /// The largest module file `require` reads (and plugin file a host loads): 16 MiB.
    public static let maximumModuleBytes = 16 << 20

    public init(modulePaths: [String] = [],
                print: @escaping @Sendable (String) -> Void = { Swift.print($0) }) {
        self.modulePaths = modulePaths
        self.print = print
    }
}

extension LuaCore {
    /// Opens the safe libraries and installs the confinement's own `load`, `print`,
    /// `collectgarbage`, `require` and the coroutine functions that let async calls
    /// suspend through user coroutines.
    func installConfinement(_ confinement: LuaConfinement) throws {
        lrt_open_safe_libs(L)
        let context = LuaContext(core: self)
        context.register("load") { call in try LuaConfinementFunctions.load(call) }
        context.register("print") { call in
            var parts: [String] = []
            for index in 1...max(call.argumentCount, 1) where index <= call.argumentCount {
                parts.append(call.stack.describe(at: Int32(index)))
            }
            confinement.print(parts.joined(separator: "\t"))
            return .none
        }
        context.register("collectgarbage") { call in
            let option = try call.optionalString(1, "opt") ?? "collect"
            guard option == "count" else {
                throw call.argumentError(1, "opt", "only 'count' is allowed in a confined state, got '\(option)'")
            }
            return call.returning(.number(Double(call.core.context.pointee.memory_used) / 1024))
        }
        try context.load(LuaConfinementFunctions.preludeChunk)
        lua_pushlightuserdata(L, lrt_async_marker())
        pushFunction("require.find") { call in try LuaConfinementFunctions.find(call, paths: confinement.modulePaths) }
        pushFunction("require.host") { call in
            let name = try call.string(1, "name")
            guard let module = call.core.hostModules[name] else { return call.returning(.nil) }
            return call.returning { $0.push(module) }
        }
        pushFunction("require.env") { call in
            lrt_push_caller_env(call.L, 2)
            if lua_type(call.L, -1) == LUA_TNIL {
                lrt_pop(call.L, 1)
                lrt_getglobal_table(call.L)
            }
            return LuaReturn(code: 1)
        }
        guard lrt_pcall(L, 4, 1) == LUA_OK else {
            throw scriptError(status: LUA_ERRRUN, on: L, traceback: nil)
        }
        readOnlyProxy = LuaReference(popping: L, core: self)
    }
}

/// The Swift halves of the confinement's functions.
enum LuaConfinementFunctions {
    /// ``prelude`` compiled once per process, without debug information: each state loads
    /// the bytecode (less memory in every state than the text compiled there, and no
    /// compiling each time a state is made).
    static let preludeChunk = LuaChunk(host: prelude, chunkName: "=confinement")

    /// Installs the coroutine wrappers and `require` (arguments: marker, find, host, env);
    /// returns the function that makes read-only tables.
    static let prelude = """
        local marker, find, host, caller_env = ...
        local co_create, co_resume, co_status, co_yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
        local select, error, type, setmetatable, load = select, error, type, setmetatable, load

        -- An async call inside a user coroutine yields the marker: pass it up to the
        -- scheduler, then hand the outcome back down.
        local function pass(co, ok, ...)
          if ok and select("#", ...) == 1 and (...) == marker and co_status(co) == "suspended" then
            return pass(co, co_resume(co, co_yield(marker)))
          end
          return ok, ...
        end
        coroutine.resume = function(co, ...) return pass(co, co_resume(co, ...)) end
        coroutine.wrap = function(f)
          local co = co_create(f)
          local function unwrap(ok, ...)
            if ok then return ... end
            error((...), 0)
          end
          return function(...) return unwrap(pass(co, co_resume(co, ...))) end
        end

        local loaded = setmetatable({}, { __mode = "k" })
        require = function(name)
          if type(name) ~= "string" then
            error("bad argument #1 'name' to 'require' (string expected, got " .. type(name) .. ")", 2)
          end
          local env = caller_env()
          local cache = loaded[env]
          if not cache then cache = {}; loaded[env] = cache end
          local value = cache[name]
          if value ~= nil then return value end
          value = host(name)
          if value == nil then
            local source, path = find(name)
            local chunk, message = load(source, "@" .. path, "t", env)
            if not chunk then error(message, 2) end
            value = chunk(name, path)
            if value == nil then value = true end
          end
          cache[name] = value
          return value
        end

        -- Finalizers run with debug hooks off, out of reach of the budgets: scripts get none.
        local rawget = rawget
        _ENV.setmetatable = function(t, mt)
          if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
            error("bad argument #2 to 'setmetatable' (__gc metamethods are not allowed in a confined state)", 2)
          end
          return setmetatable(t, mt)
        end

        -- Makes read-only views of tables (for host data such as ccai.env), named in the
        -- error of a write when a name is given.
        local next, tostring = next, tostring
        return function(t, name)
          local what = name and ("read-only " .. name) or "a read-only table"
          return setmetatable({}, {
            __index = t,
            __newindex = function(_, key) error("attempt to modify " .. what .. " (key '" .. tostring(key) .. "')", 2) end,
            __pairs = function() return next, t, nil end,
            __len = function() return #t end,
            __metatable = false,
          })
        end
        """

    /// `load(chunk [, chunkname [, mode [, env]]])`, text only, in the caller's environment.
    static func load(_ call: LuaCall) throws -> LuaReturn {
        let L = call.L
        let chunkName = try call.optionalString(2, "chunkname")
        if let mode = try call.optionalString(3, "mode"), !mode.contains("t") {
            return call.returning(.nil, .string("attempt to load a binary chunk (mode is '\(mode)'): only text is allowed"))
        }
        let source: Data
        switch lua_type(L, 1) {
        case LUA_TSTRING:
            source = try call.data(1, "chunk")
        case LUA_TFUNCTION:
            guard let pieces = try readPieces(call) else {
                let limit = lrt_context_of(L)!.pointee.memory_limit
                return call.returning(.nil, .string("the chunk its reader function gave is over the state's memory limit (\(limit) bytes)"))
            }
            source = pieces
        default:
            throw call.typeError(1, "chunk", expected: "string or function")
        }
        if source.first == 0x1B {
            return call.returning(.nil, .string("attempt to load a binary chunk: only text is allowed"))
        }
        let name = chunkName ?? (lua_type(L, 1) == LUA_TSTRING ? String(decoding: source, as: UTF8.self) : "=(load)")
        let status = source.withUnsafeBytes { bytes in
            lrt_load_text(L, bytes.bindMemory(to: CChar.self).baseAddress, bytes.count, name)
        }
        guard status == LUA_OK else {
            let message = call.stack.describe(at: -1)
            lrt_pop(L, 1)
            return call.returning(.nil, .string(message))
        }
        if call.argumentCount >= 4 {
            lua_pushvalue(L, 4)
        } else {
            lrt_push_caller_env(L, 1)
            if lua_type(L, -1) == LUA_TNIL {
                lrt_pop(L, 1)
                lrt_getglobal_table(L)
            }
        }
        if lua_setupvalue(L, -2, 1) == nil { lrt_pop(L, 1) }
        return LuaReturn(code: 1)
    }

    /// Calls a reader function until it returns nil or an empty string (`lrt_read_chunk`,
    /// whose pieces count against the budgets and whose bytes count against the memory
    /// limit). Returns nil and a message when the chunk is over the memory limit.
    private static func readPieces(_ call: LuaCall) throws -> Data? {
        let L = call.L
        lrt_pushcfunction(L, lrt_read_chunk)
        lua_pushvalue(L, 1)
        let status = lrt_pcall(L, 1, 2)
        guard status == LUA_OK else {
            let context = lrt_context_of(L)!.pointee
            if status == LUA_ERRMEM || (context.memory_limit_hit != 0 && call.stack.describe(at: -1) == "not enough memory") {
                lrt_pop(L, 1)
                return nil
            }
            throw LuaRaisedReference(reference: LuaReference(popping: L, core: call.core))
        }
        defer { lrt_pop(L, 2) }
        guard lua_toboolean(L, -1) != 0, let source = call.stack.data(at: -2) else {
            throw LuaErrorValue.invalidArgument("the reader function of 'load' must return strings")
        }
        return source
    }

    /// Finds the file of module `name` under `paths` (inside them: ``ConfinedFolder``):
    /// returns its source and path.
    static func find(_ call: LuaCall, paths: [String]) throws -> LuaReturn {
        let name = try call.string(1, "name")
        let valid = !name.isEmpty && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        }
        guard valid else {
            throw LuaErrorValue.invalidArgument("invalid module name '\(name)': use names like 'lib.util'")
        }
        let relative = name.replacingOccurrences(of: ".", with: "/")
        var tried: [String] = []
        for folder in paths {
            guard let root = try? ConfinedFolder(folder) else { continue }
            for candidate in ["\(relative).lua", "\(relative)/init.lua"] {
                let file = root.root + "/" + candidate
                tried.append(file)
                guard let source = try? root.read(candidate, maximumBytes: LuaConfinement.maximumModuleBytes) else { continue }
                return call.returning(.data(source), .string(file))
            }
        }
        let searched = tried.isEmpty ? " (no module folders are configured)" : tried.map { "\n\tno file '\($0)'" }.joined()
        throw LuaErrorValue(code: .notFound, message: "module '\(name)' not found: no host module '\(name)'\(searched)")
    }
}
