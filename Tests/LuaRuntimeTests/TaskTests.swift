import Foundation
import LuaRuntime
import Testing
import Timekeeping

/// Signals from Swift to an async binding under test.
actor Gate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

@Suite struct TaskTests {
    private func stateWithAsync(clock: any TimeSource = SystemClock(), _ configure: (LuaContext) -> Void = { _ in }) async throws
        -> LuaState
    {
        let state = try makeState(clock: clock)
        await installTasks(state)
        await state.withContext { lua in
            lua.register("fetch") { call in
                let id = try call.integer(1, "id")
                return try call.suspend {
                    // A real 5 ms stands for a binding's network latency: what these tests show is
                    // other coroutines running while one waits on work off the Lua thread that
                    // takes real time; there is no event to wait for instead.
                    try await Task.sleep(nanoseconds: 5_000_000)
                    if id < 0 { throw LuaErrorValue(code: "not_found", message: "no item \(id)") }
                    return [["id": .integer(id), "name": .string("item \(id)")]]
                }
            }
            lua.register("instant") { call in try call.suspend { ["now"] } }
            configure(lua)
        }
        return state
    }

    @Test func asyncBindingsSuspendOnlyTheirCoroutine() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local order = {}
            local t = rt.spawn(function() order[#order + 1] = "task starts"; local item = fetch(2); order[#order + 1] = "task ends"; return item.name end)
            order[#order + 1] = "main continues"
            local name = t:wait()
            return name, table.concat(order, ","), instant()
            """, chunkName: "=t")
        #expect(results == ["item 2", "main continues,task starts,task ends", "now"])
    }

    /// A small state is collected as it suspends on an async call, so a waiting VU holds
    /// its live data, not the garbage of what it did before (`LRT_WAITING_COLLECT_MAX`).
    @Test func aStateWaitingOnAnAsyncCallHoldsNoGarbage() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local function churn()
              local rows = {}
              for i = 1, 500 do rows[i] = { id = i, text = "row " .. i } end
              return #rows
            end
            local before = collectgarbage("count")
            churn()
            local busy = collectgarbage("count")
            fetch(1)
            local waited = collectgarbage("count")
            return busy - before, waited - before
            """, chunkName: "=garbage")
        let grown = results.first?.doubleValue ?? 0
        let kept = results.dropFirst().first?.doubleValue ?? .infinity
        #expect(grown > 32, "the churn left garbage: \(grown) KiB")
        #expect(kept < 4, "collected while waiting: \(kept) KiB kept")
    }

    @Test func asyncErrorsAreRaisedWhereTheCallWas() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local ok, err = pcall(fetch, -1)
            return ok, err.code, err.message, err["function"]
            """, chunkName: "=t")
        #expect(results == [false, "not_found", "no item -1", "fetch"])
    }

    @Test func asyncCallsWorkInsideUserCoroutines() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local gen = coroutine.wrap(function()
              for i = 1, 3 do coroutine.yield(fetch(i).id) end
            end)
            local co = coroutine.create(function(a) local x = fetch(a); local b = coroutine.yield(x.id); return fetch(b).id end)
            local _, first = coroutine.resume(co, 10)
            local _, second = coroutine.resume(co, 20)
            return gen(), gen(), gen(), first, second, coroutine.status(co)
            """, chunkName: "=t")
        #expect(results == [1, 2, 3, 10, 20, "dead"])
    }

    @Test func asyncCallsWhereNothingCanYieldFailClearly() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local ok, err = pcall(table.sort, {3, 1, 2}, function(a, b) fetch(1); return a < b end)
            return ok, err.message
            """, chunkName: "=t")
        #expect(results[0] == false)
        #expect(results[1].stringValue?.contains("'fetch' suspends and cannot be called here") == true)
    }

    @Test func tasksCanBeCancelledAndTheirWaitersHearOfIt() async throws {
        let gate = Gate()
        let state = try await stateWithAsync { lua in
            lua.register("block") { call in try call.suspend { await gate.wait(); return ["unblocked"] } }
        }
        let results = try await state.run(source: """
            local t = rt.spawn(function() return block() end)
            rt.sleep(0)
            local status = t:status()
            local cancelled = t:cancel()
            local ok, err = pcall(t.wait, t)
            return status, cancelled, t:status(), ok, err.code, t:cancel()
            """, chunkName: "=t")
        #expect(results == ["suspended", true, "cancelled", false, "cancelled", false])
        await gate.open()
    }

    /// A close queued while a run's Lua is still going (it came back from an async call)
    /// frees the lua_State before the run comes back to its results: the run then throws
    /// `cancelled` and never reads the freed state (AddressSanitizer in CI holds this).
    @Test func aCloseDuringARunIsNotAUseAfterFree() async throws {
        for _ in 0..<5 {
            let gate = Gate()
            let started = Gate()
            let state = try await stateWithAsync { lua in
                lua.register("pause") { call in try call.suspend { await started.open(); await gate.wait(); return [] } }
            }
            let run = Task { try await state.run(source: "pause() local n = 0 for i = 1, 200000 do n = n + i end return n",
                                                 chunkName: "=closing") }
            await started.wait()
            await gate.open()
            let close = Task { await state.close() }
            do {
                #expect(try await run.value == [.integer(20_000_100_000)], "the run ended before the close")
            } catch let error as LuaScriptError {
                #expect(error.kind == .cancelled, "\(error)")
            }
            await close.value
        }
    }

    /// requestStop ends a loop that never yields, with every budget off, from another
    /// thread; the kill is sticky and reads as `cancelled`.
    @Test func requestStopEndsALoopThatNeverYields() async throws {
        let state = try makeState(limits: LuaLimits(memoryBytes: 0, instructions: 0, seconds: 0))
        let spinning = Gate()
        await state.withContext { lua in
            lua.register("started") { call in
                Task { await spinning.open() }
                return .none
            }
        }
        let run = Task { try await state.run(source: "started() while true do end", chunkName: "=spin") }
        await spinning.wait()
        state.requestStop()
        do {
            _ = try await run.value
            Issue.record("the loop ended by itself")
        } catch let error as LuaScriptError {
            #expect(error.kind == .cancelled && error.message.contains("the state was stopped"), "\(error)")
        }
        await #expect(throws: LuaScriptError.self) { try await state.run(source: "return 1", chunkName: "=after") }
        await state.close()
    }

    @Test func waitsTimeOut() async throws {
        let clock = ManualClock()
        let state = try await stateWithAsync(clock: clock)
        let running = Task {
            try await state.run(source: """
                local t = rt.spawn(function() rt.sleep(5) end)
                local ok, err = pcall(t.wait, t, 0.02)
                t:cancel()
                return ok, err.code, err.message
                """, chunkName: "=t")
        }
        await clock.waitForTimers { $0.contains(5) && $0.contains(0.02) }
        clock.advance(by: 0.02)
        #expect(try await running.value == [false, "timeout", "the task did not finish within 0.02 seconds"])
        #expect(clock.pendingTimers == 0, "the cancelled task's sleep went with it")
    }

    @Test func aSleepLastsUntilTheStatesClockPassesIt() async throws {
        let clock = ManualClock()
        let state = try await stateWithAsync(clock: clock)
        let start = clock.now()
        let running = Task { try await state.run(source: "rt.sleep(90) return 'woke'", chunkName: "=t") }
        await clock.waitForTimers()
        clock.advance(by: 89)
        #expect(clock.pendingTimers == 1, "still asleep after 89 of 90 seconds")
        clock.advance(by: 1)
        #expect(try await running.value == ["woke"])
        #expect(clock.now() == start.addingTimeInterval(90))
    }

    @Test func tasksCannotWaitForOrCancelThemselves() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local me
            me = rt.spawn(function()
              rt.sleep(0)
              local ok1, e1 = pcall(me.wait, me)
              local ok2, e2 = pcall(me.cancel, me)
              return e1.message, e2.message
            end)
            return me:wait()
            """, chunkName: "=t")
        #expect(results == ["a task cannot wait for itself", "a task cannot cancel itself; return from its function instead"])
    }

    @Test func sleepZeroLetsOtherTasksRun() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local log = {}
            local a = rt.spawn(function() for i = 1, 3 do log[#log + 1] = "a" .. i; rt.sleep(0) end end)
            local b = rt.spawn(function() for i = 1, 3 do log[#log + 1] = "b" .. i; rt.sleep(0) end end)
            a:wait(); b:wait()
            return table.concat(log, " ")
            """, chunkName: "=t")
        #expect(results == ["a1 b1 a2 b2 a3 b3"])
    }

    @Test func aFailedTaskNobodyWaitedForFailsTheRun() async throws {
        let state = try await stateWithAsync()
        let error = await expectScriptError(state, "rt.spawn(function() error('lost in a task') end)")
        #expect(error?.message.contains("lost in a task") == true)
        let handled = try await state.run(source: """
            local t = rt.spawn(function() error('seen') end)
            local ok = pcall(t.wait, t)
            return ok
            """, chunkName: "=t")
        #expect(handled == [false])
    }

    @Test func aFailingMainChunkCancelsItsTasks() async throws {
        let state = try await stateWithAsync()
        let error = await expectScriptError(state, """
            rt.spawn(function() while true do rt.sleep(0.01) end end)
            rt.sleep(0)
            error('main gives up')
            """)
        #expect(error?.message.contains("main gives up") == true)
    }

    @Test func badArgumentsToTaskFunctions() async throws {
        let state = try await stateWithAsync()
        let results = try await state.run(source: """
            local r = {}
            for _, f in ipairs({
              function() rt.spawn(42) end, function() rt.sleep(-1) end, function() rt.sleep(math.huge) end,
              function() rt.spawn(function() end):wait(-2) end,
            }) do
              local ok, err = pcall(f)
              r[#r + 1] = err.code .. ": " .. err.message
            end
            return table.unpack(r)
            """, chunkName: "=t")
        #expect(results == [
            "invalid_argument: bad argument #1 'fn' to 'spawn' (function expected, got number)",
            "invalid_argument: bad argument #1 'seconds' to 'sleep' (a finite number >= 0 expected, got -1)",
            "invalid_argument: bad argument #1 'seconds' to 'sleep' (a finite number >= 0 expected, got inf)",
            "invalid_argument: bad argument #2 'timeout' to 'wait' (a number of seconds >= 0 expected)",
        ])
    }

    @Test func twoStatesRunAtOnce() async throws {
        let first = try await stateWithAsync()
        let second = try await stateWithAsync()
        let source = """
            local sum = 0
            for round = 1, 20 do
              for i = 1, 10000 do sum = sum + i end
              rt.sleep(0.001)
            end
            return sum
            """
        async let a = first.run(source: source, chunkName: "=a")
        async let b = second.run(source: source, chunkName: "=b")
        let (resultA, resultB) = try await (a, b)
        #expect(resultA == [.integer(20 * 50_005_000)])
        #expect(resultB == resultA)
    }

    @Test func manyStatesShareTheThreadPool() async throws {
        let results = try await withThrowingTaskGroup(of: LuaValue.self) { group in
            for n in 0..<200 {
                group.addTask {
                    let state = try await stateWithAsync()
                    return try await state.run(source: "rt.sleep(0.01) return fetch(...).id", chunkName: "=vu",
                                               arguments: [.integer(Int64(n))]).first ?? .nil
                }
            }
            var collected: [LuaValue] = []
            for try await value in group { collected.append(value) }
            return collected
        }
        #expect(Set(results) == Set((0..<200).map { LuaValue.integer(Int64($0)) }))
    }
}
