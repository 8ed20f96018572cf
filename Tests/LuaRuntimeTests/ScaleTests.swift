import Foundation
import LuaRuntime
import Testing

@Suite struct ScaleTests {
    /// The runtime is designed for 10,000 states in one process: they share a few
    /// threads (``LuaThreads``, no thread per state) and each stays small. The test makes them
    /// and runs them a hundred at a time, yielding in between, so that the suites running
    /// beside it keep their share of the pool.
    @Test func tenThousandStatesLiveAtOnce() async throws {
        let count = 10_000
        var states: [LuaState] = []
        states.reserveCapacity(count)
        for index in 0..<count {
            states.append(try LuaState())
            if index % 100 == 99 { await Task.yield() }
        }
        var total: Int64 = 0
        for batch in stride(from: 0, to: count, by: 100) {
            total += try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in batch..<min(batch + 100, count) {
                    let state = states[index]
                    group.addTask {
                        try await state.run(source: "return ...", chunkName: "=vu", arguments: [.integer(Int64(index))])
                            .first?.integerValue ?? -1
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(total == Int64(count * (count - 1) / 2))
        let memory = await states[0].withContext { lua in
            lua.collectGarbage()
            return lua.memoryUsed
        }
        #expect(memory < 64 * 1024)
    }

    /// States run on the threads they are given, never on Swift's cooperative pool: a
    /// state that spins on a one-thread ``LuaThreads`` holds that thread only, and a second
    /// state on it runs when the first is done, in turn.
    @Test func statesRunOnTheirOwnThreads() async throws {
        let threads = LuaThreads(count: 1, name: "scale-test")
        let threadName: LuaFunctionBody = { call in
            call.returning(.string(threads.isCurrent ? "scale-test" : LuaThreads.shared.isCurrent ? "shared" : "elsewhere"))
        }
        let spinning = try LuaState(limits: LuaLimits(instructions: 0, seconds: 0), threads: threads)
        let waiting = try LuaState(threads: threads)
        for state in [spinning, waiting] { await state.withContext { $0.register("thread_name", threadName) } }
        let spin = Task {
            try await spinning.run(source: "for _ = 1, 20000000 do end return thread_name()", chunkName: "=spin")
        }
        let other = try await waiting.run(source: "return thread_name()", chunkName: "=other")
        #expect(other == [.string("scale-test")])
        #expect(try await spin.value == [.string("scale-test")])
    }

    /// A closed state refuses runs and calls with a `cancelled` error, never touching the
    /// freed `lua_State`.
    @Test func aClosedStateRefusesRunsAndCalls() async throws {
        let state = try LuaState()
        try await state.run(source: "return { go = function() return 1 end }", chunkName: "=kept", keepingResultAs: "spec")
        await state.close()
        await #expect(throws: LuaScriptError.self) { try await state.run(source: "return 1", chunkName: "=again") }
        do {
            _ = try await state.call(kept: "spec", path: ["go"], arguments: [])
            Issue.record("a closed state ran a call")
        } catch let error as LuaScriptError {
            #expect(error.kind == .cancelled && error.message.contains("closed"))
        }
        #expect(await state.inspect(kept: "spec") == .nil)
    }
}

/// A chunk compiled once runs in many states, each with its own globals; its errors name
/// the file's lines; a syntax error is the compiler's.
@Suite struct CompiledChunkTests {
    @Test func aChunkCompiledOnceRunsInEveryState() async throws {
        let chunk = try LuaState.compile("""
            counter = (counter or 0) + 1
            local function fail() error("boom") end
            return { count = counter, fail = fail }
            """, chunkName: "@scenario.lua")
        for _ in 0..<3 {
            let state = try LuaState()
            try await state.run(chunk: chunk, keepingResultAs: "module")
            #expect(await state.inspect(kept: "module")["count"] == 1, "each state has its own globals")
            do {
                _ = try await state.call(kept: "module", path: ["fail"], arguments: [])
                Issue.record("fail() raised nothing")
            } catch let error as LuaScriptError {
                #expect(error.message.contains("scenario.lua:2: boom"), "\(error.message)")
            }
            await state.close()
        }
        #expect(throws: LuaScriptError.self) { try LuaState.compile("return {", chunkName: "@bad.lua") }
        do { _ = try LuaState.compile("return {", chunkName: "@bad.lua") } catch let error as LuaScriptError {
            #expect(error.message.contains("bad.lua:1:"), "\(error.message)")
        }
    }
}
