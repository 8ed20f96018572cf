import CCAIKit
import CCAIWire
import Foundation

/// The chat figures of issue 4: a customer's message goes through the sandbox to an agent
/// script that echoes it, and back to the customer as a `messages_received` event.
struct ChatBenchmarks {
    /// Messages the lone customer sends, one after the other (enough for a stable p99).
    let soloRounds = 200
    /// Customers talking at once, and the messages each sends.
    let crowd = 1_000
    let crowdRounds = 5

    /// p50 and p99 of the round trip with 1 chat, then with 1,000 concurrent chats (1,000
    /// SDK instances sharing one libcurl thread, one process), and the ratio of the p50s.
    func chatMessageRoundTrip() async throws -> [BenchmarkResult] {
        let echo = """
            return function(agent)
              while true do
                local message = agent.wait_for_message{ timeout = 600 }
                if message == nil then return end
                agent.send(message.text)
              end
            end
            """
        let config = """
            return { company = { name = "Bench", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Echo", channels = { chat = {} } } },
                     agents = { { name = "Echo", menus = { 1 }, script = "echo.lua" } } }
            """
        let bench = try await BenchmarkSandbox("chat", files: ["echo.lua": echo, "sandbox.lua": config])
        defer { bench.close() }
        let http = HTTPClient()

        let single = try await measure(chats: 1, rounds: soloRounds, from: 0, port: bench.port, http: http)
        let crowdStart = DispatchTime.now().uptimeNanoseconds
        let many = try await measure(chats: crowd, rounds: crowdRounds, from: 1, port: bench.port, http: http)
        let crowdSeconds = Double(DispatchTime.now().uptimeNanoseconds - crowdStart) / 1e9
        let detail = "customer -> sandbox -> agent script echo -> customer event"
        return CrowdLatency(single: single, many: many, crowd: crowd).results(
            prefix: "chat_rtt", ratioName: "chat_message_round_trip", what: "chat",
            singleDetail: "\(single.count) round trips, 1 chat; \(detail)",
            crowdDetail: String(format: "%d round trips, %d concurrent chats in one process, %.0f a second with sign-ins",
                                many.count, crowd, Double(many.count) / crowdSeconds))
    }

    /// Round-trip seconds of `chats` customers talking at once, `rounds` messages each.
    private func measure(chats: Int, rounds: Int, from first: Int, port: UInt16, http: HTTPClient) async throws
        -> [Double]
    {
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for index in first..<(first + chats) {
                group.addTask { try await customer(index, rounds: rounds, port: port, http: http) }
            }
            var all: [Double] = []
            for try await samples in group { all += samples }
            return all
        }
    }

    /// One customer: authenticates, starts a chat, sends `rounds` messages one after the
    /// other and times each until the agent's echo arrives; then ends the chat.
    private func customer(_ index: Int, rounds: Int, port: UInt16, http: HTTPClient) async throws -> [Double] {
        let sdk = CCAI(http: http)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", cacheAuthToken: false))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string("customer-\(index)")], issuedAt: Date(), lifetime: 3_600)
        _ = try await sdk.authService!.authenticate(jwt)
        sdk.initializeChat()
        let chat = sdk.chatService!
        var echoes = chat.messagesReceived.makeAsyncIterator()
        try await chat.start(request: ChatRequest(menuId: 1, lang: "en"))
        var samples: [Double] = []
        for round in 0..<rounds {
            let text = "ping \(index).\(round)"
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await chat.sendMessage(.text(content: text))
            while true {
                guard let batch = await echoes.next() else { throw BenchmarkError(message: "the event stream ended") }
                if batch.contains(where: { $0.sender.type == "agent" && $0.text == text }) { break }
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        try await chat.endChat()
        return samples
    }
}
