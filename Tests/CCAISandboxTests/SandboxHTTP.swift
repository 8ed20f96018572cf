import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Timekeeping

/// An end user's view of a sandbox over HTTP, through curl: a served sandbox, a token for
/// an identity, authorized calls.
enum SandboxHTTP {
    static func serve(at date: Date = QueueMenuTests.mondayMorning, configuration: SandboxConfiguration = .builtIn)
        throws -> (Sandbox, HTTPServer)
    {
        let sandbox = try Sandbox(configuration: configuration, clock: ManualClock(date))
        return (sandbox, try sandbox.serve())
    }

    static func token(_ server: HTTPServer, _ identifier: String, at date: Date = QueueMenuTests.mondayMorning,
                       key: String = "dev-key", secret: String = "dev-secret") async throws -> String {
        let jwt = try JWTSigner(algorithm: .hs384, secret: secret).sign(["identifier": .string(identifier)], issuedAt: date, lifetime: 600)
        let reply = try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                           body: Data(#"{"company_key":"\#(key)","jwt":"\#(jwt)"}"#.utf8))
        return try JSONDecoder().decode(AuthResponse.self, from: Data(reply.body.utf8)).authToken
    }

    static func call(_ server: HTTPServer, _ method: String, _ path: String, _ token: String, _ body: String? = nil)
        async throws -> Curl.Reply
    {
        try await Curl.request(method, "\(server.baseURL)\(path)", body: body.map { Data($0.utf8) },
                               headers: ["Authorization": "Bearer \(token)"])
    }

    /// The agents' messages of a chat once there are at least `count` (or after 10 seconds).
    static func agentMessages(_ server: HTTPServer, _ chat: Int, _ token: String, count: Int) async throws -> [ChatMessage] {
        var messages: [ChatMessage] = []
        _ = try await eventually {
            messages = try decode(try await call(server, "GET", "/chats/\(chat)/messages", token), as: [ChatMessage].self)
                .filter { $0.sender.type == "agent" }
            return messages.count >= count
        }
        return messages
    }

    /// Waits (up to 10 seconds) until the chat has ended.
    static func waitUntilEnded(_ server: HTTPServer, _ chat: Int, _ token: String) async throws {
        _ = try await eventually {
            try decode(try await call(server, "GET", "/chats/\(chat)", token), as: ChatResponse.self).status == .ended
        }
    }

    /// The reply's JSON body as `type`.
    static func decode<Value: Decodable>(_ reply: Curl.Reply, as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(reply.body.utf8))
    }
}
