import LuaRuntime
import Testing

/// States that share a memory budget (a run's VUs within `options.max_memory`): each
/// allocation is counted against it as it is made, from any state, and one past it is
/// refused in the state that asked, which says so; what a closed state held is given back.
@Suite struct MemoryPoolTests {
    @Test func statesSharingABudgetAreHeldToItTogether() async throws {
        let pool = LuaMemoryPool(limitBytes: 12 << 20)
        var limits = LuaLimits(memoryBytes: 64 << 20)
        limits.pool = pool
        let first = try makeState(limits: limits)
        let second = try makeState(limits: limits)
        try await first.run(source: #"held = ("x"):rep(4 << 20)"#, chunkName: "=first")
        #expect(pool.usedBytes > 4 << 20 && !pool.wasExceeded)
        let error = await expectScriptError(second, #"held = ("x"):rep(4 << 20)"#)
        #expect(error?.kind == .memory, "\(String(describing: error))")
        #expect(error?.message.contains("the states sharing this one's budget hold its 12 MiB together") == true,
                "\(String(describing: error?.message))")
        #expect(pool.wasExceeded)
        await first.close()
        await second.close()
        #expect(pool.usedBytes == 0, "closed states give their bytes back: \(pool.usedBytes)")
        let third = try makeState(limits: limits)
        try await third.run(source: #"held = ("x"):rep(4 << 20)"#, chunkName: "=third")
        #expect(pool.usedBytes <= pool.limitBytes)
    }
}
