import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Where an end user's calls go: a sandbox's router in this process (``ServedSandbox``),
/// or a server over the wire through curl (``HTTPServer``), a client independent of the
/// project's own.
protocol SandboxEndpoint: Sendable {
    /// A request, with the end user's bearer `token` when given; the path may carry a
    /// query (`?page=2`).
    func request(_ method: String, _ path: String, token: String?, body: String?) async throws -> Curl.Reply
}

extension HTTPServer: SandboxEndpoint {
    func request(_ method: String, _ path: String, token: String?, body: String?) async throws -> Curl.Reply {
        try await Curl.request(method, "\(baseURL)\(path)", body: body.map { Data($0.utf8) },
                               headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }
}

/// A sandbox served on a loopback port whose end-user calls go through its router in
/// this process (``InProcessClient``: the same admission and handlers, no socket, no
/// curl); the server stays up for what a test reaches over the wire (`baseURL`, its own
/// `Curl` requests).
struct ServedSandbox: SandboxEndpoint {
    let http: HTTPServer
    let client: InProcessClient

    var baseURL: String { http.baseURL }
    var port: UInt16 { http.port }

    func stop(grace: TimeInterval = 5) async {
        await http.stop(grace: grace)
    }

    func request(_ method: String, _ path: String, token: String?, body: String?) async throws -> Curl.Reply {
        let url = try #require(URLComponents(string: "http://sandbox.invalid" + path))
        var query: [String: String] = [:]
        for item in url.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let reply = await client.call(method, url.percentEncodedPath, query: query, token: token, json: body)
        return Curl.Reply(status: reply.status, body: reply.text,
                          headers: Dictionary(reply.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }))
    }
}

/// An end user's view of a sandbox: a served sandbox, a token for an identity, authorized
/// calls. ``serve(at:configuration:)`` takes them in process; the wire and security tests
/// use ``serveOverTheWire(at:configuration:)``.
enum SandboxHTTP {
    static func serve(at date: Date = QueueMenuTests.mondayMorning, configuration: SandboxConfiguration = .builtIn)
        throws -> (Sandbox, ServedSandbox)
    {
        let (sandbox, server) = try serveOverTheWire(at: date, configuration: configuration)
        return (sandbox, ServedSandbox(http: server, client: InProcessClient(sandbox)))
    }

    static func serveOverTheWire(at date: Date = QueueMenuTests.mondayMorning, configuration: SandboxConfiguration = .builtIn)
        throws -> (Sandbox, HTTPServer)
    {
        let sandbox = try Sandbox(configuration: configuration, clock: ManualClock(date))
        return (sandbox, try sandbox.serve())
    }

    static func token(_ server: some SandboxEndpoint, _ identifier: String, at date: Date = QueueMenuTests.mondayMorning,
                      key: String = "dev-key", secret: String = "dev-secret") async throws -> String {
        let jwt = try JWTSigner(algorithm: .hs384, secret: secret).sign(["identifier": .string(identifier)], issuedAt: date, lifetime: 600)
        let reply = try await server.request("POST", "/auth/end_user", token: nil, body: #"{"company_key":"\#(key)","jwt":"\#(jwt)"}"#)
        return try JSONDecoder().decode(AuthResponse.self, from: Data(reply.body.utf8)).authToken
    }

    static func call(_ server: some SandboxEndpoint, _ method: String, _ path: String, _ token: String, _ body: String? = nil)
        async throws -> Curl.Reply
    {
        try await server.request(method, path, token: token, body: body)
    }

    /// The agents' messages of a chat once there are at least `count` (or after 10 seconds).
    static func agentMessages(_ server: some SandboxEndpoint, _ chat: Int, _ token: String, count: Int) async throws -> [ChatMessage] {
        var messages: [ChatMessage] = []
        _ = try await eventually {
            messages = try decode(try await call(server, "GET", "/chats/\(chat)/messages", token), as: [ChatMessage].self)
                .filter { $0.sender.type == "agent" }
            return messages.count >= count
        }
        return messages
    }

    /// Waits (up to 10 seconds) until the chat has ended.
    static func waitUntilEnded(_ server: some SandboxEndpoint, _ chat: Int, _ token: String) async throws {
        _ = try await eventually {
            try decode(try await call(server, "GET", "/chats/\(chat)", token), as: ChatResponse.self).status == .ended
        }
    }

    /// The reply's JSON body as `type`.
    static func decode<Value: Decodable>(_ reply: Curl.Reply, as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(reply.body.utf8))
    }
}
