import CLua
import Foundation
import LuaRuntime
import Testing

/// The sandbox's `string.find`, `match`, `gmatch` and `gsub` (Sources/CLuaShim/patterns.c)
/// against stock Lua's, and their budget.
@Suite struct PatternTests {
    /// Runs `PatternTests.driver` in a plain `luaL_openlibs` state: stock Lua's functions.
    private static func runStock(seed: Int, cases: Int) throws -> String {
        let L = try #require(luaL_newstate())
        defer { lua_close(L) }
        luaL_openlibs(L)
        try #require(luaL_loadbufferx(L, driver, driver.utf8.count, "=driver", "t") == LUA_OK, "the driver compiles")
        lua_pushinteger(L, lua_Integer(seed))
        lua_pushinteger(L, lua_Integer(cases))
        let status = lua_pcallk(L, 2, 1, 0, 0, nil)
        var length = 0
        let bytes = try #require(lua_tolstring(L, -1, &length))
        let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        try #require(status == LUA_OK, "the driver runs in stock Lua: \(text)")
        return text
    }

    /// Runs the same driver in a confined state: the shim's functions.
    private static func runSandboxed(seed: Int, cases: Int) async throws -> String {
        let state = try makeState(limits: .unlimited)
        let results = try await state.run(source: driver, chunkName: "=driver", arguments: [.number(Double(seed)), .number(Double(cases))])
        switch results.first {
        case .string(let text)?: return text
        case .data(let bytes)?: return String(decoding: bytes, as: UTF8.self)
        default:
            Issue.record("the driver returned \(results)")
            return ""
        }
    }

    @Test func generatedPatternsBehaveAsInStockLua() async throws {
        let stock = try Self.runStock(seed: 17, cases: 6_000).split(separator: "\n", omittingEmptySubsequences: false)
        let ours = try await Self.runSandboxed(seed: 17, cases: 6_000).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(stock.count == ours.count)
        #expect(stock.count > 6_000, "every case and every fixed case wrote a line")
        let differing = zip(stock, ours).filter { $0 != $1 }
        for (expected, actual) in differing.prefix(10) {
            Issue.record("stock: \(expected)\nours:  \(actual)")
        }
        #expect(differing.isEmpty, "\(differing.count) of \(stock.count) cases differ")
        let errors = stock.filter { $0.contains("=> false") }.count
        #expect(errors > 100 && errors < stock.count / 2, "the cases cover errors and results alike (\(errors) errors)")
    }

    @Test(.timeLimit(.minutes(1))) func backtrackingEndsWithTheTimeBudget() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 1))
        let error = await expectScriptError(state, #"return ("a"):rep(400):find(".-.-.-.-b")"#)
        #expect(error?.kind == .limit)
        #expect(error?.structured?.fields["limit"] == "time")
    }

    @Test(.timeLimit(.minutes(1))) func everyPatternFunctionCountsItsStepsAsInstructions() async throws {
        let calls = [
            #"string.find(("a"):rep(400), ".-.-.-.-b")"#,
            #"(("a"):rep(400)):match("(.-)(.-)(.-)(.-)b")"#,
            #"for m in (("a"):rep(400)):gmatch(".-.-.-.-b") do end"#,
            #"string.gsub(("a"):rep(400), ".-.-.-.-b", "x")"#,
            #"string.find(("a"):rep(1e6), ("a"):rep(5e5) .. "b", 1, true)"#,
            #"string.gsub(("("):rep(1e5), "%b()", "")"#,
        ]
        for call in calls {
            let state = try makeState(limits: LuaLimits(memoryBytes: 16 << 20, instructions: 5_000_000, seconds: 0))
            let error = await expectScriptError(state, call)
            #expect(error?.structured?.fields["limit"] == "instructions", "\(call): \(String(describing: error))")
        }
    }

    @Test(.timeLimit(.minutes(1))) func pcallCannotSwallowAPatternKill() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 5_000_000, seconds: 0))
        let error = await expectScriptError(state, #"""
            local ok, err = pcall(string.find, ("a"):rep(400), ".-.-.-.-b")
            return "survived", ok, err
            """#)
        #expect(error?.structured?.fields["limit"] == "instructions")
        let again = await expectScriptError(state, "return 1")
        #expect(again?.kind == .limit)
    }

    @Test func ordinaryMatchingStaysWithinTheDefaultBudget() async throws {
        let state = try makeState()
        let results = try await state.run(source: #"""
            local text = ("name=value; "):rep(20000)
            local pairs, replaced = 0, 0
            for k, v in text:gmatch("(%w+)=(%w+)") do pairs = pairs + 1 end
            local _, n = text:gsub("%s+", " ")
            return pairs, n, text:find("value;", 1, true)
            """#, chunkName: "=t")
        #expect(results == [20_000, 20_000, 6, 11])
    }

    /// Generates patterns and subjects from a seed, runs each case through `string.find`,
    /// `match`, `gmatch` and `gsub` under `pcall`, and returns one line per case: the call
    /// and everything it returned or raised.
    static let driver = #"""
        local seed, count = ...
        math.randomseed(seed)
        local R = math.random
        local function pick(list) return list[R(#list)] end

        local atoms = { "a", "b", "c", "1", ".", " ", "%a", "%A", "%c", "%C", "%d", "%D", "%g", "%G",
          "%l", "%L", "%p", "%P", "%s", "%S", "%u", "%U", "%w", "%W", "%x", "%X", "%.", "%%", "%(",
          "%]", "%-", "%z", "%_", "[ab]", "[^ab]", "[a-c]", "[%d%s]", "[]]", "[^]]", "[a-]", "[-a]",
          "[%a-]", "[^%w_]", "[.]", "[b-a]", "[%]]", "[^%d]", "-", "]", "^", "$", "\0" }
        local quantifiers = { "", "", "", "", "*", "+", "-", "?" }
        local specials = { "(", ")", "()", "(", ")", "%b()", "%bab", "%b))", "%f[%w]", "%f[%W]", "%f[a]",
          "%f[^%s]", "%f[%z]", "%1", "%2", "%0", "%9", "$" }
        local broken = { "%", "[a", "[^", "[%", "[%]", "%b", "%ba", "%f", "%fa", "%f[a", "[", "[^]" }
        local function pattern()
          local parts = {}
          if R(4) == 1 then parts[#parts + 1] = "^" end
          for _ = 1, R(0, 6) do
            local r = R(20)
            if r <= 13 then parts[#parts + 1] = pick(atoms) .. pick(quantifiers)
            elseif r <= 19 then parts[#parts + 1] = pick(specials)
            else parts[#parts + 1] = pick(broken) end
          end
          if R(6) == 1 then parts[#parts + 1] = "$" end
          return table.concat(parts)
        end
        local letters = { "a", "a", "b", "b", "c", "1", "2", " ", " ", "(", ")", ".", "%", "-", "]",
          "A", "B", "\0", "\n", "_", "\xC3\xA9", "^", "$" }
        local function subject()
          local t = {}
          for i = 1, R(0, 12) do t[i] = pick(letters) end
          return table.concat(t)
        end
        local function position()
          local r = R(6)
          if r == 1 then return nil elseif r == 2 then return R(-20, 20) elseif r == 3 then return 0 end
          return R(1, 6)
        end
        local templates = { "x", "%0", "%1", "%2", "[%1|%2]", "%%", "%", "a%", "%x", "<%0>", "%3%1", "", "%9" }
        local maps = { { a = "A", b = false, ["1"] = 1 }, { [" "] = "_", ["()"] = "?" }, {} }
        local replacers = {
          function(...) return table.concat({ ... }, ",") end,
          function() return nil end,
          function() return false end,
          function(a) return #a end,
          function() return {} end,
          function(a) return a == "a" and "A" or nil end,
        }
        local function replacement()
          local r = R(8)
          if r <= 4 then return pick(templates) elseif r == 5 then return pick(maps) elseif r == 6 then return 7 end
          return pick(replacers)
        end

        local function show(v)
          local t = type(v)
          if t == "string" then return (string.format("%q", v):gsub("\n", "n")) end
          if t == "number" then return math.type(v) .. ":" .. tostring(v) end
          if t == "table" or t == "function" then return t end
          return tostring(v)
        end
        local function record(out, label, ...)
          local n = select("#", ...)
          local shown = {}
          for i = 1, n do shown[i] = show((select(i, ...))) end
          out[#out + 1] = label .. " => " .. table.concat(shown, " ")
        end
        local function gmatch_all(s, p, init)
          local results, iterator = {}, string.gmatch(s, p, init)
          for _ = 1, 30 do
            local found = table.pack(iterator())
            if found.n == 0 or found[1] == nil then break end
            for i = 1, found.n do results[#results + 1] = show(found[i]) end
            results[#results + 1] = "|"
          end
          return table.concat(results, " ")
        end

        local out = {}
        local function case(label, f, ...) record(out, label, pcall(f, ...)) end
        for i = 1, count do
          local s, p, op = subject(), pattern(), R(5)
          local label = i .. " " .. show(s) .. " " .. show(p)
          if op == 1 then
            local init, plain = position(), R(4) == 1 or nil
            case(label .. " find " .. show(init) .. " " .. show(plain), string.find, s, p, init, plain)
          elseif op == 2 then
            local init = position()
            case(label .. " match " .. show(init), string.match, s, p, init)
          elseif op == 3 then
            local init = position()
            case(label .. " gmatch " .. show(init), gmatch_all, s, p, init)
          else
            local repl, most = replacement(), R(3) == 1 and R(-1, 3) or nil
            case(label .. " gsub " .. show(repl) .. " " .. show(most), string.gsub, s, p, repl, most)
          end
        end

        -- What random patterns rarely reach: the limits, the argument checks, the methods.
        local deep = ("a?"):rep(250)
        case("deep ?", string.find, ("a"):rep(250), deep)
        case("deep ? shallower", string.find, ("a"):rep(199), ("a?"):rep(199))
        case("deep captures", string.find, ("a"):rep(300), ("(a)"):rep(20) .. ("a?"):rep(190))
        case("32 captures", string.match, ("a"):rep(40), ("(a)"):rep(32))
        case("33 captures", string.match, ("a"):rep(40), ("(a)"):rep(33))
        case("33 positions", string.match, "a", ("()"):rep(33))
        case("unfinished", string.match, "abc", "(a")
        case("unfinished in find", string.find, "abc", "(b")
        case("close without open", string.find, "abc", "a)")
        case("backref to open", string.find, "aa", "(a%1)")
        case("backref to position", string.find, "aa", "()a%1")
        case("backref", string.find, "xabab", "(ab)%1")
        case("gsub %2 of one", string.gsub, "abc", "(b)", "%2")
        case("gsub %1 without captures", string.gsub, "abc", "b", "[%1]")
        case("gsub %2 without captures", string.gsub, "abc", "b", "%2")
        case("gsub position", string.gsub, "abc", "()b()", "%1-%2")
        case("gsub table position", string.gsub, "abc", "()b", { [2] = "two" })
        case("gsub anchored", string.gsub, "aaa", "^a", "b")
        case("gsub empty matches", string.gsub, "abc", "%w*", "-")
        case("gsub empty pattern", string.gsub, "abc", "", "-")
        case("gsub bad repl", string.gsub, "abc", "b", true)
        case("gsub bad n", string.gsub, "abc", "b", nil, "x")
        case("gsub no repl", string.gsub, "abc", "b")
        case("gsub number repl", string.gsub, "abc", "b", 42)
        case("gsub huge n", string.gsub, "abc", "b", "x", math.maxinteger)
        case("gsub min n", string.gsub, "abc", "b", "x", math.mininteger)
        case("find number subject", string.find, 12345, 3)
        case("find nil subject", string.find, nil, "a")
        case("find table pattern", string.find, "a", {})
        case("find float init", string.find, "abc", "b", 1.5)
        case("find string init", string.find, "abc", "b", "2")
        case("find mininteger", string.find, "abc", "a", math.mininteger)
        case("find maxinteger", string.find, "abc", "", math.maxinteger)
        case("find empty at end", string.find, "abc", "", 4)
        case("find empty past end", string.find, "abc", "", 5)
        case("find plain specials", string.find, "a.b(c", ".b(", 1, true)
        case("find plain empty", string.find, "abc", "", 2, true)
        case("find nul", string.find, "a\0b", "\0")
        case("find nul class", string.find, "a\0b", "%z")
        case("match frontier end", string.match, "THE (quick) fox", "%f[%a]%a+%f[%A]")
        case("match frontier at end", string.find, "abc", "%f[%z]")
        case("match balance", string.match, "x(a(b)c)d", "%b()")
        case("match balance unclosed", string.match, "x(a(b c", "%b()")
        case("balance same", string.find, "'a'b'", "%b''")
        case("gmatch anchor", gmatch_all, "^a^a", "^a")
        case("gmatch init", gmatch_all, "abcabc", "b", 3)
        case("gmatch init negative", gmatch_all, "abcabc", "b", -2)
        case("gmatch init past", gmatch_all, "abc", ".", 10)
        case("gmatch empty", gmatch_all, "abc", "")
        case("gmatch position", gmatch_all, "abc", "()")
        case("method find", function(s) return s:find("b+") end, "abbbc")
        case("method gsub", function(s) return s:gsub("(%w+)", "<%1>") end, "hello world")
        case("method match", function(s) return s:match("^(%d+)%-(%d+)$") end, "12-34")
        case("long set", string.find, "z", "[" .. ("a"):rep(1000) .. "z]")
        case("long literal", string.find, ("ab"):rep(500) .. "c", ("ab"):rep(400) .. "c")
        case("greedy then back", string.match, "key = value = more", "(.*)=(.*)")
        case("lazy", string.match, "<a><b>", "<(.-)>")
        case("range edges", string.gsub, "abcxyz-", "[a-cx-]", "#")
        case("high bytes", string.gsub, "\xC3\xA9t\xC3\xA9", "[\x80-\xFF]+", "?")
        case("class of high byte", string.find, "\xFF", "%a")
        return table.concat(out, "\n")
        """#
}
