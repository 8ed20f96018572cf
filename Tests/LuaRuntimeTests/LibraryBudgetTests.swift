import CLua
import Foundation
import LuaRuntime
import Testing
import Timekeeping

/// The confined state's standard-library C functions count their work against the budgets
/// (Sources/CLuaShim/library.c): a loop in C ends with the state's kill, as a loop of
/// instructions does, and ordinary calls give stock Lua's results and errors.
@Suite struct LibraryBudgetTests {
    private let small = LuaLimits(memoryBytes: 8 << 20, instructions: 2_000_000, seconds: 0)

    /// Calls that turned for hours in C without a Lua instruction (issue 38, item 1).
    static let hostileCalls = [
        "table.move({}, 1, 1 << 40, 1)",
        "table.move({}, 1, 1 << 40, 2)",
        "table.move({}, 1, 1 << 40, 1, {})",
        "table.insert(setmetatable({}, { __len = function() return 1 << 40 end }), 1, 0)",
        "table.remove(setmetatable({}, { __len = function() return 1 << 40 end }), 1)",
        #"table.concat(setmetatable({}, { __index = rawlen }), "", 1, 1 << 40)"#,
        """
        local huge = setmetatable({}, { __len = function() return (1 << 31) - 2 end, __index = rawlen,
                                        __newindex = function() end })
        table.sort(huge, math.ult)
        """,
        """
        local huge = setmetatable({}, { __len = function() return (1 << 31) - 2 end, __index = rawlen,
                                        __newindex = function() end })
        table.sort(huge)
        """,
        #"local big = ("x"):rep(1 << 20) while true do local _ = big:upper() end"#,
        // A replacement of escapes that add nothing, for each of 100,001 empty matches: it
        // grows no memory, and walked its template 1e11 times (the round's re-try).
        #"("x"):rep(100000):gsub("", ("%0"):rep(1000000))"#,
    ]

    @Test(.timeLimit(.minutes(1)), arguments: hostileCalls)
    func aLoopInALibraryFunctionEndsWithTheInstructionBudget(_ call: String) async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, call)
        #expect(error?.kind == .limit)
        #expect(error?.structured?.fields["limit"] == "instructions")
        let again = await expectScriptError(state, "return 1")
        #expect(again?.kind == .limit, "the kill is sticky")
    }

    /// Repeating nothing is nothing, at once: stock Lua turned 2^63 times to find that out.
    @Test(.timeLimit(.minutes(1))) func repeatingAnEmptyStringEndsAtOnce() async throws {
        let state = try makeState(limits: small)
        let results = try await state.run(source: #"return ("").rep("", math.maxinteger), string.rep("", math.maxinteger, "")"#,
                                          chunkName: "=t")
        #expect(results == [.string(""), .string("")])
    }

    /// With the instruction budget off, the wall-clock budget stops the same loops: the budget
    /// clock here moves a second at every reading, so it runs out after ten checks.
    @Test(.timeLimit(.minutes(1))) func theTimeBudgetStopsALoopInALibraryFunction() async throws {
        let state = try LuaState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 10),
                                 confinement: LuaConfinement(), diagnostics: CollectedDiagnostics().diagnostics,
                                 budgetClock: SecondPerReadingClock())
        let error = await expectScriptError(state, "table.move({}, 1, 1 << 40, 1)")
        #expect(error?.kind == .limit && error?.structured?.fields["limit"] == "time")
    }

    /// Compiling is not linear in the source and runs no instruction: a chain of 120,000
    /// `elseif`s compiled for 20 s past every budget (the round's re-try). The parser gets
    /// the source a piece at a time and the budgets are checked between pieces, so the time
    /// budget ends the compilation, and the kill stays.
    @Test(.timeLimit(.minutes(1))) func theTimeBudgetStopsACompilation() async throws {
        let state = try LuaState(limits: LuaLimits(memoryBytes: 64 << 20, instructions: 0, seconds: 10),
                                 confinement: LuaConfinement(), diagnostics: CollectedDiagnostics().diagnostics,
                                 budgetClock: SecondPerReadingClock())
        let error = await expectScriptError(state, #"load("if x then " .. ("elseif x then "):rep(120000) .. "end")"#)
        #expect(error?.kind == .limit && error?.structured?.fields["limit"] == "time", "\(String(describing: error))")
        let again = await expectScriptError(state, "return 1")
        #expect(again?.kind == .limit, "the kill is sticky")
    }

    /// A stop request (a run's Ctrl-C) ends a state inside a long C loop, with no budget set.
    @Test(.timeLimit(.minutes(1))) func aStopRequestEndsALoopInALibraryFunction() async throws {
        let state = try makeState(limits: .unlimited)
        await state.withContext { lua in
            lua.register("stop_me") { [weak state] _ in
                state?.requestStop()
                return .none
            }
        }
        let error = await expectScriptError(state, "stop_me() table.move({}, 1, 1 << 40, 1)")
        #expect(error?.code == "cancelled")
        #expect(error?.message.contains("the state was stopped") == true, "\(String(describing: error?.message))")
    }

    /// A reader written in C (`os.date`) never ends and runs no instruction: its pieces count
    /// against the budget and stop at the memory limit.
    @Test(.timeLimit(.minutes(1))) func loadFromAReaderInCStopsAtTheMemoryLimit() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 1 << 20, instructions: 0, seconds: 0))
        let results = try await state.run(source: "return load(os.date)", chunkName: "=t")
        #expect(results.first == .nil)
        #expect(results.last?.stringValue?.contains("over the state's memory limit (1048576 bytes)") == true,
                "\(results)")
        let budgeted = try makeState(limits: LuaLimits(memoryBytes: 64 << 20, instructions: 100_000, seconds: 0))
        let error = await expectScriptError(budgeted, "load(os.date)")
        #expect(error?.kind == .limit && error?.structured?.fields["limit"] == "instructions")
    }

    @Test func libraryWorkCountsAsInstructions() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 64 << 20, instructions: 1_000_000, seconds: 0))
        let fits = try await state.run(source: "return #table.move({}, 1, 900000, 1, {})", chunkName: "=t")
        #expect(fits == [.integer(0)], "900,000 moves fit in a budget of 1,000,000")
        let error = await expectScriptError(state, "table.move({}, 1, 600000, 1) table.move({}, 1, 600000, 1)")
        #expect(error?.kind == .limit, "two moves of 600,000 between yields do not")
    }

    /// Every replaced function on ordinary input, in stock Lua and in a confined state.
    @Test func ordinaryCallsBehaveAsInStockLua() async throws {
        let stock = try runStock()
        let state = try makeState(limits: .unlimited)
        let ours = try await state.run(source: Self.driver, chunkName: "=cases").first?.stringValue ?? ""
        let stockLines = stock.split(separator: "\n")
        let ourLines = ours.split(separator: "\n")
        #expect(stockLines.count == ourLines.count)
        #expect(stockLines.count > 100)
        for (expected, actual) in zip(stockLines, ourLines) where expected != actual {
            Issue.record("stock: \(expected)\nours:  \(actual)")
        }
        #expect(stockLines.filter { $0.contains("=> error") }.count > 30, "the cases cover errors too")
    }

    private func runStock() throws -> String {
        let L = try #require(luaL_newstate())
        defer { lua_close(L) }
        luaL_openlibs(L)
        try #require(luaL_loadbufferx(L, Self.driver, Self.driver.utf8.count, "=cases", "t") == LUA_OK)
        let status = lua_pcallk(L, 0, 1, 0, 0, nil)
        let text = String(cString: try #require(lua_tolstring(L, -1, nil)))
        try #require(status == LUA_OK, "the cases run in stock Lua: \(text)")
        return text
    }

    /// Each case runs under pcall; its results (tables shown with their sorted contents) or
    /// its error make one line.
    static let driver = #"""
        local function show(v)
          if type(v) ~= "table" then return type(v) .. ":" .. tostring(v) end
          local keys = {}
          for k in pairs(v) do keys[#keys + 1] = k end
          table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
          local parts = {}
          for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. show(v[k]) end
          return "{" .. table.concat(parts, ",") .. "}"
        end
        local function run(f)
          local results = table.pack(pcall(f))
          if not results[1] then return "error " .. tostring(results[2]) end
          local shown = {}
          for i = 2, results.n do shown[#shown + 1] = show(results[i]) end
          return "ok " .. table.concat(shown, " ")
        end
        local function list() return { 10, 20, 30, 40 } end
        -- A proxy table: reads and writes go through metamethods and are logged.
        local function proxy()
          local data, log = { "a", "b", "c" }, {}
          local t = setmetatable({}, {
            __index = function(_, k) log[#log + 1] = "get" .. k return data[k] end,
            __newindex = function(_, k, v) log[#log + 1] = "set" .. k .. "=" .. tostring(v) data[k] = v end,
            __len = function() return #data end,
          })
          return t, data, log
        end
        local cases = {
          function() return ("ab"):rep(3) end,
          function() return ("ab"):rep(3, ", ") end,
          function() return ("ab"):rep(1, ", ") end,
          function() return ("x"):rep(0), ("x"):rep(-5), ("x"):rep(math.mininteger, "s") end,
          function() return ("").rep("", 5), ("").rep("", 5, ""), (""):rep(3, "-") end,
          function() return ("x"):rep(2.0), ("x"):rep("3"), string.rep(12, 2) end,
          function() return ("x"):rep(1.5) end,
          function() return string.rep() end,
          function() return ("x"):rep() end,
          function() return string.rep({}, 1) end,
          function() return string.rep("x", 2, {}) end,
          function() local t = list() table.insert(t, 50) return t end,
          function() local t = list() table.insert(t, 1, 5) return t end,
          function() local t = list() table.insert(t, 3, 25) return t end,
          function() local t = list() table.insert(t, 5, 45) return t end,
          function() local t = list() table.insert(t, 6, 0) return t end,
          function() local t = list() table.insert(t, 0, 0) return t end,
          function() local t = list() table.insert(t, -1, 0) return t end,
          function() local t = list() table.insert(t, 1, 2, 3) return t end,
          function() local t = list() table.insert(t) return t end,
          function() table.insert(nil, 1) end,
          function() table.insert("s", 1) end,
          function() local t = list() table.insert(t, "2", 15) return t end,
          function() local t = list() table.insert(t, 2.5, 0) return t end,
          function() local t, data, log = proxy() table.insert(t, 2, "x") return data, log end,
          function() local t, data, log = proxy() table.insert(t, "z") return data, log end,
          function() local t = list() return table.remove(t), t end,
          function() local t = list() return table.remove(t, 1), t end,
          function() local t = list() return table.remove(t, 2), t end,
          function() local t = list() return table.remove(t, 5), t end,
          function() local t = list() return table.remove(t, 6), t end,
          function() local t = list() return table.remove(t, 0), t end,
          function() local t = {} return table.remove(t), table.remove(t, 0), table.remove(t, 1), t end,
          function() local t = { [0] = "zero" } return table.remove(t, 0), t end,
          function() local t = {} return table.remove(t, 2) end,
          function() local t = {} return table.remove(t, -1) end,
          function() return table.remove() end,
          function() local t, data, log = proxy() return table.remove(t, 1), data, log end,
          function() local t = list() return table.move(t, 1, 3, 2), t end,
          function() local t = list() return table.move(t, 2, 4, 1), t end,
          function() local t = list() return table.move(t, 1, 4, 3), t end,
          function() local t = list() return table.move(t, 1, 4, 1, {}), t end,
          function() local t = list() return table.move(t, 3, 1, 1, {}) end,
          function() local t = list() return table.move(t, -1, 2, 10) end,
          function() local t = list() return table.move(t, 1, 2, -3) end,
          function() local t = list() local u = list() return table.move(t, 1, 3, 2, u), u == t end,
          function() return table.move({}, math.mininteger, 1, 1) end,
          function() return table.move({}, 0, math.maxinteger, 1) end,
          function() return table.move({ 1, 2 }, 1, 2, math.maxinteger) end,
          function() return table.move({ 1, 2 }, 1, 2, math.maxinteger - 1) end,
          function() return table.move({ 1 }, 1, 1, 1, 5) end,
          function() return table.move(5, 1, 1, 1) end,
          function() return table.move({}, "a", 1, 1) end,
          function() return table.move({}, 1, 1) end,
          function() local t, data, log = proxy() return table.move(t, 1, 3, 2), data, log end,
          function() local t, data, log = proxy() local u, udata, ulog = proxy() table.move(t, 1, 2, 2, u) return udata, log, ulog end,
          function() return table.concat(list()) end,
          function() return table.concat(list(), ", ") end,
          function() return table.concat(list(), ", ", 2) end,
          function() return table.concat(list(), ", ", 2, 3) end,
          function() return table.concat(list(), ", ", 3, 2) end,
          function() return table.concat(list(), ", ", 4, 4) end,
          function() return table.concat({}, "x") end,
          function() return table.concat({ 1, 2.5, "s", 2^53, -0.0, 1e100 }, "|") end,
          function() return table.concat({ 1, {}, 3 }) end,
          function() return table.concat({ 1, 2, 3 }, ",", 1, 5) end,
          function() return table.concat({ 1, 2, 3 }, {}) end,
          function() return table.concat({ 1, 2, 3 }, 7) end,
          function() return table.concat({ [-1] = "m", [0] = "z", "a" }, ",", -1, 1) end,
          function() return table.concat() end,
          function() return table.concat("abc") end,
          function() local t, data, log = proxy() return table.concat(t, "+"), log end,
          function() local t = { 3, 1, 2 } table.sort(t) return t end,
          function() local t = { "b", "a", "c", "B" } table.sort(t) return t end,
          function() local t = { 3, 1, 2 } table.sort(t, function(a, b) return a > b end) return t end,
          function() local t = { 3, -1, 2, 0 } table.sort(t, math.ult) return t end,
          function() local t = { 3, 1, 2 } table.sort(t, nil) return t end,
          function() local t = { 1, "x" } table.sort(t) return t end,
          function() local t = { 1, 2, 3 } table.sort(t, 5) return t end,
          function() local t = { 1 } table.sort(t, 5) return t end,
          function() local t = { 1.5, 1, 1.25 } table.sort(t, math.ult) return t end,
          function() table.sort() end,
          function() table.sort(nil, function() end) end,
          function() local t = {} for i = 1, 200 do t[i] = (i * 37) % 101 end table.sort(t) return t end,
          function() local t = {} for i = 1, 50 do t[i] = i % 7 end table.sort(t, function(a, b) return true end) return t end,
          function() local t, data = proxy() table.sort(t) return data end,
          function() return table.unpack({ 1, 2, 3 }) end,
          function() return table.unpack({ 1, 2, 3 }, 2) end,
          function() return table.unpack({ 1, 2, 3 }, -1, 1) end,
          function() return select("#", table.unpack({}, 1, 1 << 40)) end,
          function() return select("#", table.unpack({}, 3, 1)) end,
          function() return table.pack(1, nil, 3) end,
          function() return select("#", 1, nil, nil), select(-1, 1, 2, 3), select(2, "a", "b", "c") end,
          function() return string.byte("hello", 1, -1) end,
          function() return string.byte("hello", 10), string.byte("") end,
          function() return string.char(104, 105), string.char() end,
          function() return string.char(256) end,
          function() return string.format("%5d|%-5s|%.3f|%q|%x|%g", 42, "ab", math.pi, "a\nb\0", 255, 1e20) end,
          function() return string.format("%99d", 1):len(), string.format("%.99f", 1):len() end,
          function() return string.format("%100d", 1) end,
          function() return string.format("%d", 1.5) end,
          function() return string.format("%s %s", 1) end,
          function() return string.format("%s", setmetatable({}, { __tostring = function() return "T" end })) end,
          function() return ("AbC"):lower(), ("AbC"):upper(), ("abc"):reverse(), ("abc"):len(), #"" end,
          function() return ("hello"):sub(2, -2), ("hello"):sub(-100, 100), ("hello"):sub(4, 2) end,
          function() return string.sub() end,
          function() return string.pack("i4 z s1", 7, "ab", "cd"):len(), string.unpack("i4", string.pack("i4", -3)) end,
          function() return string.packsize("i4 i8 d") end,
          function() return string.pack("i17", 1) end,
          function() return string.unpack("i4", "ab") end,
          function() return string.packsize("s") end,
          function() return utf8.char(72, 0x20AC, 0x10FFFF), utf8.char() end,
          function() return utf8.char(-1) end,
          function() return utf8.codepoint("h€llo", 1, -1) end,
          function() return utf8.codepoint("\xff") end,
          function() return utf8.len("h€llo"), utf8.len("\xffa"), utf8.len("abc", 5) end,
          function() return utf8.offset("h€llo", 3), utf8.offset("h€llo", -1), utf8.offset("abc", 10) end,
          function() local out = {} for p, c in utf8.codes("h€") do out[#out + 1] = p .. ":" .. c end return out end,
        }
        local out = {}
        for i, f in ipairs(cases) do out[#out + 1] = i .. " => " .. run(f) end
        return table.concat(out, "\n")
        """#
}

/// A budget clock that moves one second at every reading.
private final class SecondPerReadingClock: TimeSource, @unchecked Sendable {
    private let clock = ManualClock()

    func now() -> Date {
        clock.advance(by: 1)
        return clock.now()
    }

    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        clock.schedule(after: seconds, action)
    }
}
