import CCAIKit
import CCAIWire
import Foundation

/// The call figure of issue 19: a customer starts an instant call, an agent takes it, its
/// script answers, and the customer hears of it as a `connected` call (`callReceived`).
struct CallBenchmarks {
    /// Calls the lone customer makes, one after the other (enough for a stable p99).
    let soloCalls = 100
    /// Customers calling at once, one call each.
    let crowd = 1_000

    /// p50 and p99 of the call setup with 1 call, then with 1,000 concurrent calls (1,000
    /// SDK instances sharing one libcurl thread, one process), and the ratio of the p50s.
    func callSetup() async throws -> [BenchmarkResult] {
        let answer = """
            return function(agent, session)
              agent.wait{ seconds = 600 }
            end
            """
        let config = """
            return { company = { name = "Bench", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Phone", channels = { voice_call = { instant = true, recording = "never" } } } },
                     agents = { { name = "Answer", menus = { 1 }, script = "answer.lua" } },
                     limits = { calls_per_hour = 1000000, requests_per_second = 1000000, burst = 1000000 } }
            """
        let bench = try await BenchmarkSandbox("call", files: ["answer.lua": answer, "sandbox.lua": config])
        defer { bench.close() }
        let http = HTTPClient()

        let single = try await customer(0, calls: soloCalls, port: bench.port, http: http)
        let crowdStart = DispatchTime.now().uptimeNanoseconds
        let many = try await withThrowingTaskGroup(of: [Double].self) { group in
            for index in 1...crowd {
                group.addTask { try await customer(index, calls: 1, port: bench.port, http: http) }
            }
            var all: [Double] = []
            for try await samples in group { all += samples }
            return all
        }
        let crowdSeconds = Double(DispatchTime.now().uptimeNanoseconds - crowdStart) / 1e9
        let detail = "start_instant_call -> queued -> the agent takes it, its script runs -> the customer's connected call"
        return CrowdLatency(single: single, many: many, crowd: crowd).results(
            prefix: "call_setup", ratioName: "call_setup_ratio", what: "call",
            singleDetail: "\(single.count) calls one after another; \(detail)",
            crowdDetail: String(format: "%d concurrent calls in one process, %.0f a second with sign-ins and hang-ups",
                                many.count, Double(many.count) / crowdSeconds))
    }

    /// One customer: authenticates, then makes `calls` calls one after the other, timing
    /// each from its start until the platform says it is connected, and hangs up.
    private func customer(_ index: Int, calls: Int, port: UInt16, http: HTTPClient) async throws -> [Double] {
        let sdk = CCAI(http: http)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", cacheAuthToken: false))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string("caller-\(index)")], issuedAt: Date(), lifetime: 3_600)
        _ = try await sdk.authService!.authenticate(jwt)
        sdk.initializeCall(CallOptions(playAudibleMessages: false))
        let service = sdk.callService!
        var received = service.callReceived.makeAsyncIterator()
        var samples: [Double] = []
        for _ in 0..<calls {
            let start = DispatchTime.now().uptimeNanoseconds
            let call = try await service.startInstantCall(InstantCallRequest(menuId: 1))
            while call.status != .connected {
                guard let changed = await received.next() else { throw BenchmarkError(message: "the event stream ended") }
                if changed.id == call.id, changed.status == .connected { break }
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            try await service.endCall()
        }
        return samples
    }
}
