import CCAISandbox
import CCAIWire
import Foundation

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

    /// The reply's JSON body as `type`.
    static func decode<Value: Decodable>(_ reply: Curl.Reply, as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(reply.body.utf8))
    }
}
