import CCAIKit
import CCAIScripting
import CLua
import CLuaShim
import Foundation
@_spi(Benchmarks) import LuaRuntime

/// The LuaRuntime figures of issue 2, each measured side by side in one run.
struct RuntimeBenchmarks {
    let calls = 5_000_000
    let asyncCalls = 1_000_000
    let events = 1_000_000
    let patternRounds = 50

    /// The figures whose name contains `filter` (all when nil). A benchmark that cannot run
    /// (a tool missing, a port taken) gives its figures as missing, with the reason, and
    /// the others still run.
    func run(filter: String?) async -> [BenchmarkResult] {
        func one(_ benchmark: @escaping () async throws -> BenchmarkResult) -> () async throws -> [BenchmarkResult] {
            { [try await benchmark()] }
        }
        let all: [(name: String, figures: [String], measure: () async throws -> [BenchmarkResult])] = [
            ("binding_call_ratio", [], one(bindingCallRatio)),
            ("async_call_ratio", [], one(asyncCallRatio)),
            ("event_dispatch_ratio", [], one(eventDispatchRatio)),
            ("pattern_match_ratio", [], one(patternMatchRatio)),
            ("state_memory_bytes", ["state_memory_bytes", "state_memory_base_bytes", "state_memory_stock_bytes"], stateMemory),
            ("http_round_trip_ratio", [], one(PlatformBenchmarks().httpRoundTripRatio)),
            ("chat_message_round_trip", CrowdLatency.figures(prefix: "chat_rtt", ratioName: "chat_message_round_trip"),
             ChatBenchmarks().chatMessageRoundTrip),
            ("call_setup_ms", CrowdLatency.figures(prefix: "call_setup", ratioName: "call_setup_ratio"),
             CallBenchmarks().callSetup),
            ("transcript_pdf_ms", [], one(TranscriptBenchmarks().transcriptPDF)),
            ("redaction_ms", [], one { TranscriptBenchmarks().redaction() }),
            ("sandbox_rss_per_1000_chats", ["sandbox_rss_per_1000_chats", "sandbox_rss_per_1000_chats_streams"],
             SoakBenchmarks().sandboxRSSPer1000Chats),
            ("vu_memory_bytes", ["vu_memory_bytes_1000", "vu_memory_bytes_10000"],
             { try await Self.scenarios { try await $0.vuMemory() } }),
            ("vu_part", ScenarioBenchmarks.vuPartFigures, { try await Self.scenarios { try await $0.vuParts() } }),
            ("vus_10000", [], { try await Self.scenarios { try await $0.tenThousandVUs() } }),
            ("virtual_day_speedup", [], { try await Self.scenarios { try await $0.virtualDaySpeedup() } }),
            ("sandbox_throughput_ratio", ["sandbox_throughput_ratio", "sandbox_throughput_ratio_busy"],
             { try await Self.scenarios { try await $0.sandboxThroughputRatio() } }),
            ("peer_ratio", ["peer_memory_ratio", "peer_throughput_ratio", "peer_cpu_per_chat_ratio"],
             { try await Self.scenarios { try await $0.peerRatios() } }),
            ("dashboard_throughput_ratio", [], { try await Self.scenarios { [try await $0.dashboardThroughputRatio()] } }),
        ]
        var results: [BenchmarkResult] = []
        for benchmark in all where filter.map({ benchmark.name.contains($0) }) ?? true {
            do {
                results += try await benchmark.measure()
            } catch {
                let figures = benchmark.figures.isEmpty ? [benchmark.name] : benchmark.figures
                results += figures.map { BenchmarkResult(missing: $0, reason: "\(error)") }
            }
        }
        return results
    }

    /// Runs a benchmark of the `ccai` binary in a folder of its own, removed afterwards.
    private static func scenarios(_ body: (ScenarioBenchmarks) async throws -> [BenchmarkResult]) async throws -> [BenchmarkResult] {
        let benchmarks = try ScenarioBenchmarks()
        defer { benchmarks.cleanUp() }
        return try await body(benchmarks)
    }

    /// A state as scripts get it: the ccai module with the SDK's bindings and plugins.
    private func makeState() async throws -> LuaState {
        try await ScriptRunner(logger: StreamLogger(minimumLevel: .error), sdk: CCAI()).makeState()
    }

    /// A trivial Swift binding vs a trivial C function, both called from the same Lua loop.
    func bindingCallRatio() async throws -> BenchmarkResult {
        let state = try await makeState()
        let (swift, c) = try await state.withContext { lua -> (Double, Double) in
            lua.register("swift_noop") { _ in .none }
            lrt_pushcfunction(lua.rawState, lrt_bench_noop)
            lua_setglobal(lua.rawState, "c_noop")
            let loop = { (name: String) in
                "local f = \(name) for i = 1, \(calls) do f() end"
            }
            var swift = 0.0, c = 0.0
            for _ in 0..<3 {
                swift = try Timing.nanosecondsPerOperation(operations: calls) { try lua.evaluate(loop("swift_noop")) }
                c = try Timing.nanosecondsPerOperation(operations: calls) { try lua.evaluate(loop("c_noop")) }
            }
            return (swift, c)
        }
        return BenchmarkResult(
            name: "binding_call_ratio", value: swift / c, target: "<= 1.5",
            detail: String(format: "Swift binding %.1f ns/call, C function %.1f ns/call", swift, c))
    }

    /// An async Swift binding that completes at once (in a task of the confined runtime)
    /// vs a coroutine.resume/coroutine.yield pair in a stock Lua state.
    func asyncCallRatio() async throws -> BenchmarkResult {
        let state = try await makeState()
        await state.withContext { lua in
            lua.register("async_noop") { call in try call.suspend { [] } }
            lua.register("clock") { call in
                call.returning(.number(Double(DispatchTime.now().uptimeNanoseconds) / 1e9))
            }
        }
        var asyncBest = Double.infinity
        for _ in 0..<5 {
            let results = try await state.run(source: """
                local f, n = async_noop, \(asyncCalls)
                local start = clock()
                for i = 1, n do f() end
                return (clock() - start) * 1e9 / n
                """, chunkName: "=bench")
            asyncBest = min(asyncBest, results.first?.doubleValue ?? .infinity)
        }
        let stock = try StockLua()
        let resumeYield = try Timing.nanosecondsPerOperation(operations: asyncCalls) {
            try stock.run("""
                local co = coroutine.create(function() while true do coroutine.yield() end end)
                local resume = coroutine.resume
                for i = 1, \(asyncCalls) do resume(co) end
                """)
        }
        return BenchmarkResult(
            name: "async_call_ratio", value: asyncBest / resumeYield, target: "<= 20",
            detail: String(format: "async binding %.1f ns/call, resume+yield pair %.1f ns", asyncBest, resumeYield))
    }

    /// An event delivered from Swift to an `on` handler vs lua_pcall of the same function.
    func eventDispatchRatio() async throws -> BenchmarkResult {
        let state = try await makeState()
        let (event, pcall) = try await state.withContext { lua -> (Double, Double) in
            let emitter = lua.makeEmitter(name: "bench", events: ["tick"])
            var module = LuaModule(name: "bench")
            module.events(emitter)
            lua.setGlobal("bench", module: module)
            try lua.evaluate("""
                count = 0
                handler = function(n) count = count + 1 end
                bench.on("tick", handler)
                """)
            let L = lua.rawState
            var event = 0.0, pcall = 0.0
            for _ in 0..<3 {
                event = Timing.nanosecondsPerOperation(operations: events) {
                    for i in 0..<events { emitter.emit("tick", .integer(Int64(i))) }
                }
                pcall = Timing.nanosecondsPerOperation(operations: events) {
                    lua_getglobal(L, "handler")
                    for i in 0..<events {
                        lua_pushvalue(L, -1)
                        lua_pushinteger(L, lua_Integer(i))
                        lua_pcallk(L, 1, 0, 0, 0, nil)
                    }
                    lrt_pop(L, 1)
                }
            }
            guard case .integer(let count) = lua.global("count"), count >= Int64(events) * 5 else {
                throw BenchmarkError(message: "the handler did not receive every event")
            }
            return (event, pcall)
        }
        return BenchmarkResult(
            name: "event_dispatch_ratio", value: event / pcall, target: "<= 3",
            detail: String(format: "event to an `on` handler %.1f ns, lua_pcall %.1f ns", event, pcall))
    }

    /// `find`, `match`, `gmatch` and `gsub` with everyday patterns over a 20 KB text: the
    /// sandbox's budgeted matcher (Sources/CLuaShim/patterns.c) vs stock Lua's.
    func patternMatchRatio() async throws -> BenchmarkResult {
        let workload = """
            local text = ("GET /chats/42/messages?page=2 HTTP/1.1  user=jane.roe@example.test; id=7 "):rep(270)
            for round = 1, \(patternRounds) do
              local squeezed = text:gsub("%s+", " ")
              local count = 0
              for key, value in text:gmatch("(%w+)=([%w%.@]+)") do count = count + 1 end
              local page = text:match("messages%?page=(%d+)")
              local at = text:find("[%w%.]+@[%w%.]+%.%a+", 1000)
              local plain = text:find("HTTP/1.2", 1, true)
              local upper = text:gsub("%f[%w]%l", string.upper)
            end
            """
        let state = try await makeState()
        let ours = try await state.withContext { lua in
            try Timing.nanosecondsPerOperation(operations: patternRounds) { try lua.evaluate(workload) }
        }
        let stock = try StockLua()
        let theirs = try Timing.nanosecondsPerOperation(operations: patternRounds) { try stock.run(workload) }
        return BenchmarkResult(
            name: "pattern_match_ratio", value: ours / theirs, target: "<= 1.2",
            detail: String(format: "sandbox %.2f ms, stock Lua %.2f ms per round of 6 calls on 20 KB", ours / 1e6, theirs / 1e6))
    }

    /// Memory of one fresh confined state with the `ccai` module, after a full collection;
    /// of one without it (the confined standard library alone), which shows the module's
    /// share; and of stock Lua's state with its whole standard library (`luaL_openlibs`),
    /// the floor a state with Lua's libraries starts from.
    func stateMemory() async throws -> [BenchmarkResult] {
        func collected(_ state: LuaState) async -> Int {
            await state.withContext { lua in
                lua.collectGarbage()
                return lua.memoryUsed
            }
        }
        let bytes = await collected(try await makeState())
        let base = await collected(try LuaState())
        let stock = try StockLua()
        lrt_gc_collect(stock.L)
        let stockBytes = Int(lrt_gc_count_bytes(stock.L))
        return [
            BenchmarkResult(name: "state_memory_bytes", value: Double(bytes), target: "<= 24576",
                            detail: "a confined state with the ccai module (SDK bindings included), after a full collection"),
            BenchmarkResult(name: "state_memory_base_bytes", value: Double(base), target: "-",
                            detail: "a confined state without the ccai module (its standard library), after a full collection"),
            BenchmarkResult(name: "state_memory_stock_bytes", value: Double(stockBytes), target: "-",
                            detail: "stock Lua's luaL_newstate with luaL_openlibs, after a full collection"),
        ]
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A stock Lua state (standard libraries, no sandbox, no hooks): the baseline of pure Lua.
final class StockLua {
    let L: OpaquePointer

    init() throws {
        guard let state = luaL_newstate() else { throw BenchmarkError(message: "cannot create a Lua state") }
        L = state
        luaL_openlibs(L)
    }

    deinit { lua_close(L) }

    func run(_ source: String) throws {
        guard luaL_loadstring(L, source) == LUA_OK, lua_pcallk(L, 0, 0, 0, 0, nil) == LUA_OK else {
            let message = String(cString: lua_tolstring(L, -1, nil))
            lrt_pop(L, 1)
            throw BenchmarkError(message: message)
        }
    }
}
