import Foundation
import LuaRuntime
import Testing
import Timekeeping

@Suite struct LimitTests {
    private let small = LuaLimits(memoryBytes: 8 << 20, instructions: 2_000_000, seconds: 5)

    @Test func anInfiniteLoopIsKilled() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, "while true do end")
        #expect(error?.kind == .limit)
        #expect(error?.code == "limit_exceeded")
        #expect(error?.structured?.fields["limit"] == "instructions")
        #expect(error?.message.contains("instruction limit exceeded") == true)
    }

    @Test func pcallCannotSwallowTheKill() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, """
            local caught = 0
            while true do
              local ok = pcall(function() while true do end end)
              caught = caught + 1
            end
            """)
        #expect(error?.kind == .limit)
        let again = await expectScriptError(state, "return 1")
        #expect(again?.kind == .limit)
    }

    @Test func xpcallHandlersCannotSwallowItEither() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, """
            while true do xpcall(function() while true do end end, function(e) return e end) end
            """)
        #expect(error?.kind == .limit)
    }

    @Test func theWallClockBudgetStopsLongRuns() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 0.2))
        let error = await expectScriptError(state, "while true do end")
        #expect(error?.kind == .limit)
        #expect(error?.structured?.fields["limit"] == "time")
    }

    @Test func theWallClockBudgetReadsTheStatesClock() async throws {
        let clock = ManualClock()
        let state = try makeState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 10), clock: clock)
        await state.withContext { lua in
            lua.register("pass_time") { call in
                clock.advance(by: try call.number(1, "seconds"))
                return .none
            }
        }
        let finished = try await state.run(source: "for i = 1, 100000 do end pass_time(9) for i = 1, 100000 do end return 'within'",
                                           chunkName: "=t")
        #expect(finished == ["within"], "9 seconds of a 10-second budget")
        let error = await expectScriptError(state, "for i = 1, 100000 do end pass_time(11) while true do end")
        #expect(error?.kind == .limit && error?.structured?.fields["limit"] == "time")
    }

    /// A simulation's clock stands still while a script spins: its budget keeps the real time.
    @Test func aBudgetClockApartFromTheStatesClockStillStopsLongRuns() async throws {
        let state = try LuaState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 0.2),
                                 confinement: LuaConfinement(), diagnostics: CollectedDiagnostics().diagnostics, clock: ManualClock(),
                                 budgetClock: SystemClock())
        let error = await expectScriptError(state, "while true do end")
        #expect(error?.kind == .limit && error?.structured?.fields["limit"] == "time")
    }

    /// `os.time()` and `os.date()` read the state's clock; with a table or a time given they
    /// convert it as Lua does.
    @Test func osTimeAndDateReadTheStatesClock() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_630_400))
        let state = try makeState(clock: clock)
        let before = try await state.run(source: "return os.time(), os.date('!%Y-%m-%dT%H:%M:%S'), os.date('!%H', 0)",
                                         chunkName: "=t")
        #expect(before == [.integer(1_796_630_400), .string("2026-12-07T08:00:00"), .string("00")])
        clock.advance(by: 90.5)
        let after = try await state.run(source: "local t = os.date('!*t') return os.time(), t.min, t.sec, os.date('!%c') ~= nil",
                                        chunkName: "=t")
        #expect(after == [.integer(1_796_630_490), .integer(1), .integer(30), .boolean(true)])
        let converted = try await state.run(source: "return os.time{ year = 2026, month = 1, day = 2, hour = 12 } ~= os.time()",
                                            chunkName: "=t")
        #expect(converted == [.boolean(true)])
        // Their errors read as the stock functions' do: the caller's line, the function's name.
        let missing = await expectScriptError(state, "local x = 1\nreturn os.time({ year = 2026 })")
        #expect(missing?.message.contains(":2: field 'month' missing in date table") == true, "\(missing?.message ?? "")")
        let badTime = await expectScriptError(state, "return os.date('*t', 'soon')")
        #expect(badTime?.message.contains(":1: bad argument #2 to 'date'") == true, "\(badTime?.message ?? "")")
    }

    @Test func budgetsApplyBetweenYields() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 3_000_000, seconds: 5))
        await installTasks(state)
        let results = try await state.run(source: """
            local total = 0
            for round = 1, 5 do
              for i = 1, 500000 do total = total + 1 end
              rt.sleep(0)
            end
            return total
            """, chunkName: "=t")
        #expect(results == [2_500_000])
    }

    @Test func aMemoryBombHitsTheCap() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, "local t = {} for i = 1, 1e9 do t[i] = i end")
        #expect(error?.kind == .memory)
        #expect(error?.code == "limit_exceeded")
        #expect(error?.message.contains("memory limit exceeded") == true)
        #expect(try await state.run(source: "return 'still usable'", chunkName: "=t") == ["still usable"])
    }

    @Test func aStringRepBombHitsTheCap() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, "local s = string.rep('x', 100 * 1024 * 1024)")
        #expect(error?.kind == .memory)
        let huge = await expectScriptError(state, "local s = ('x'):rep(2^40)")
        #expect(huge?.message.contains("too large") == true || huge?.kind == .memory)
    }

    @Test func scriptsCanCatchMemoryErrors() async throws {
        // The memory cap is the one under test: filling it runs the collector hard, which
        // under ThreadSanitizer took more than the 5 s of `small`.
        let state = try makeState(limits: LuaLimits(memoryBytes: small.memoryBytes, instructions: small.instructions, seconds: 120))
        let results = try await state.run(source: """
            local ok, err = pcall(string.rep, "x", 100 * 1024 * 1024)
            local grown, bomb = pcall(function() local t = {} for i = 1, 1e8 do t[i] = {} end end)
            local handled, through = xpcall(function() local t = {} for i = 1, 1e8 do t[i] = {} end end,
                                            function(e) return "the handler is not called for memory errors" end)
            return ok, err.code, err.limit, bomb.code, through.code, select("#", pcall(error)), pcall(error, "plain")
            """, chunkName: "=t")
        #expect(results[0] == false)
        #expect(Array(results[1...4]) == ["limit_exceeded", "memory", "limit_exceeded", "limit_exceeded"],
                "a memory error caught by pcall or xpcall is the limit error, as an uncaught one is")
        #expect(results[5] == 2 && results[6] == false && results[7] == "plain", "other errors pass as they are")
    }

    /// The stack is the limit under test: its own 120 s of time, since growing a deep
    /// stack under ThreadSanitizer took more than 10 s.
    @Test func deepRecursionIsAnError() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 64 << 20, instructions: 50_000_000, seconds: 120))
        let error = await expectScriptError(state, "local function f(n) return 1 + f(n + 1) end f(1)")
        #expect(error?.message.contains("stack overflow") == true, "\(String(describing: error))")
    }

    @Test func aCoroutineBombHitsTheCap() async throws {
        let state = try makeState(limits: small)
        let error = await expectScriptError(state, """
            local all = {}
            for i = 1, 1e9 do all[i] = coroutine.create(function() end) end
            """)
        #expect(error?.kind == .memory)
    }

    @Test func hostAllocationsCountAgainstTheCap() async throws {
        let state = try makeState(limits: small)
        await state.withContext { lua in
            lua.register("big") { call in call.returning(.data(Data(count: 16 << 20))) }
        }
        let error = await expectScriptError(state, "local s = big()")
        #expect(error?.kind == .memory)
    }

    @Test func aKilledStateDoesNotHarmAnother() async throws {
        let victim = try makeState(limits: small)
        let bystander = try makeState()
        await installTasks(bystander)
        async let killed = expectScriptError(victim, "while true do end")
        async let fine = bystander.run(source: "rt.sleep(0.05) return 'fine'", chunkName: "=b")
        let (error, result) = try await (killed, fine)
        #expect(error?.kind == .limit)
        #expect(result == ["fine"])
    }
}
