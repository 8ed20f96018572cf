import CCAIKit
import CCAIWire
import Foundation

/// Whether a served sandbox grows with the chats it has served (issue 8): 20,000 chats of
/// distinct end users (sign in, start, the agent script's greeting, a message and its
/// echo, goodbye), 16 at a time, against an in-process sandbox keeping its state on disk,
/// first over plain requests (no event stream, polling the messages), then through SDK
/// instances with their event streams. The figure is the growth of the process's RSS per
/// 1,000 chats after a warm-up of 1,000; flat is the target (SQLite's page cache and
/// malloc's arenas settle within the warm-up).
struct SoakBenchmarks {
    let chats = 20_000
    let warmUp = 1_000
    let concurrency = 16

    func sandboxRSSPer1000Chats() async throws -> [BenchmarkResult] {
        let echo = """
            return function(agent)
              agent.send("Hi, I echo")
              while true do
                local message = agent.wait_for_message{ timeout = 600 }
                if message == nil or message.text == "bye" then agent.end_session() return end
                agent.send(message.text)
              end
            end
            """
        let config = """
            return { company = { name = "Soak", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Echo", channels = { chat = {} } } },
                     agents = { { name = "Echo", menus = { 1 }, script = "echo.lua" } },
                     limits = { requests_per_second = 1e9, burst = 1e9, chats_per_hour = 1000000 } }
            """
        let bench = try await BenchmarkSandbox("soak", files: ["echo.lua": echo, "sandbox.lua": config], keepsData: true)
        defer { bench.close() }
        let http = HTTPClient()
        var results: [BenchmarkResult] = []
        for (name, streams) in [("sandbox_rss_per_1000_chats", false), ("sandbox_rss_per_1000_chats_streams", true)] {
            let prefix = streams ? "streams" : "plain"
            try await run(warmUp, from: 0, prefix: prefix, streams: streams, port: bench.port, http: http)
            let before = Self.residentKilobytes()
            let start = DispatchTime.now().uptimeNanoseconds
            try await run(chats, from: warmUp, prefix: prefix, streams: streams, port: bench.port, http: http)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let after = Self.residentKilobytes()
            let perThousand = Double(after - before) / (Double(chats) / 1_000)
            results.append(BenchmarkResult(
                name: name, value: perThousand, target: "flat",
                detail: String(format: "KiB of RSS per 1,000 chats: %d KiB after %d warm-up chats, %d KiB after %d more (%.0f chats/s%@)",
                               before, warmUp, after, chats, Double(chats) / seconds, streams ? ", SDK with event streams" : ", no event stream")))
        }
        return results
    }

    /// `count` chats, `concurrency` at a time, end users `prefix-first...`.
    private func run(_ count: Int, from first: Int, prefix: String, streams: Bool, port: UInt16, http: HTTPClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = first
            let end = first + count
            func start(_ index: Int) {
                group.addTask {
                    if streams {
                        try await sdkChat("\(prefix)-\(index)", port: port, http: http)
                    } else {
                        try await plainChat("\(prefix)-\(index)", port: port, http: http)
                    }
                }
            }
            while next < end, next < first + concurrency {
                start(next)
                next += 1
            }
            while try await group.next() != nil {
                if next < end {
                    start(next)
                    next += 1
                }
            }
        }
    }

    /// One chat over plain requests: polls the messages instead of reading events.
    private func plainChat(_ identifier: String, port: UInt16, http: HTTPClient) async throws {
        let base = "http://127.0.0.1:\(port)"
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string(identifier)], issuedAt: Date(), lifetime: 3_600)
        let auth = try await json(http, "POST", base + "/auth/end_user", token: nil,
                                  body: ["company_key": "dev-key", "jwt": .string(jwt)])
        guard let token = auth["auth_token"]?.stringValue else { throw BenchmarkError(message: "no token: \(auth)") }
        let chat = try await json(http, "POST", base + "/chats", token: token, body: ["menu_id": 1])
        guard let id = chat["id"]?.doubleValue.flatMap(Checked.integer) else { throw BenchmarkError(message: "no chat: \(chat)") }
        func agentSaid(_ text: String) async throws -> Bool {
            let messages = try await json(http, "GET", base + "/chats/\(id)/messages", token: token, body: nil)
            guard case .array(let list) = messages else { return false }
            return list.contains { $0["sender"]?["type"]?.stringValue == "agent" && $0["text"]?.stringValue == text }
        }
        func waitFor(_ text: String) async throws {
            for _ in 0..<2_000 {
                if try await agentSaid(text) { return }
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            throw BenchmarkError(message: "no '\(text)' from the agent in chat \(id)")
        }
        try await waitFor("Hi, I echo")
        _ = try await json(http, "POST", base + "/chats/\(id)/messages", token: token,
                           body: ["client_message_id": "m1", "text": "hello"])
        try await waitFor("hello")
        _ = try await json(http, "POST", base + "/chats/\(id)/messages", token: token,
                           body: ["client_message_id": "m2", "text": "bye"])
    }

    /// One chat through an SDK instance, with its event stream (the instance, and with it
    /// its stream, goes when the chat is done).
    private func sdkChat(_ identifier: String, port: UInt16, http: HTTPClient) async throws {
        let sdk = CCAI(http: http)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", cacheAuthToken: false))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string(identifier)], issuedAt: Date(), lifetime: 3_600)
        _ = try await sdk.authService!.authenticate(jwt)
        sdk.initializeChat()
        let chat = sdk.chatService!
        var messages = chat.messagesReceived.makeAsyncIterator()
        try await chat.start(request: ChatRequest(menuId: 1, lang: "en"))
        func waitFor(_ text: String) async throws {
            while true {
                guard let batch = await messages.next() else { throw BenchmarkError(message: "the event stream ended") }
                if batch.contains(where: { $0.sender.type == "agent" && $0.text == text }) { return }
            }
        }
        try await waitFor("Hi, I echo")
        _ = try await chat.sendMessage(.text(content: "hello"))
        try await waitFor("hello")
        _ = try await chat.sendMessage(.text(content: "bye"))
    }

    private func json(_ http: HTTPClient, _ method: String, _ url: String, token: String?, body: JSONValue?) async throws -> JSONValue {
        var request = HTTPClientRequest(method: method, url: url, body: try body.map { Data(try $0.jsonText().utf8) })
        if body != nil { request.headers["Content-Type"] = "application/json" }
        if let token { request.headers["Authorization"] = "Bearer \(token)" }
        let response = try await http.send(request)
        guard (200..<300).contains(response.status) else {
            throw BenchmarkError(message: "\(method) \(url): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONValue(jsonText: String(decoding: response.body, as: UTF8.self))
    }

    /// The process's resident set, in KiB.
    static func residentKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}
