import Foundation
import LuaRuntime
import Testing

@Suite struct ScaleTests {
    /// The runtime is designed for 10,000 states in one process: they share the small
    /// cooperative pool (no thread per state) and each stays small. The test makes them
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
}
