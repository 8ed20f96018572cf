import LuaRuntime
import Testing

@Suite struct SmokeTests {
    @Test func runsAndReturns() async throws {
        let state = try makeState()
        let results = try await state.run(source: "return 1 + 1, 'x', {a = 1}", chunkName: "=t")
        #expect(results == [2, "x", ["a": 1]])
    }

    @Test func spawnSleepWait() async throws {
        let state = try makeState()
        await installTasks(state)
        let results = try await state.run(source: """
            local t = rt.spawn(function(n) rt.sleep(0.01); return n * 2 end, 21)
            local u = rt.spawn(function() rt.sleep(0); return 'u' end)
            return t:wait(5), u:wait()
            """, chunkName: "=t")
        #expect(results == [42, "u"])
    }

    @Test func errorsCarryTraceback() async throws {
        let state = try makeState()
        let error = await expectScriptError(state, "local function f() error('boom') end\nf()")
        #expect(error?.message == "test:1: boom")
        #expect(error?.traceback?.contains("stack traceback") == true)
    }
}
