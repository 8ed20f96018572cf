import CCAISandbox
import CCAIWire
import Foundation

/// An end user's calls to a sandbox's router in the same process: no sockets, the same
/// admission and handlers as the server (`HTTPRouter.respond(to:)`).
public struct InProcessClient: Sendable {
    public let sandbox: Sandbox
    public let router: HTTPRouter

    public init(_ sandbox: Sandbox) {
        self.sandbox = sandbox
        router = sandbox.router
    }

    public struct Reply {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }

        public func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
            try JSONDecoder().decode(type, from: body)
        }
    }

    public func call(_ method: String, _ path: String, query: [String: String] = [:], token: String? = nil, json: String? = nil)
        async -> Reply
    {
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if json != nil { headers["content-type"] = "application/json" }
        let response = await router.respond(to: HTTPRequest(method: method, path: path, query: query, headers: headers,
                                                            body: Data((json ?? "").utf8)))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// Signs `identifier` in with the built-in company's secret (a JWT issued at `date`,
    /// the time of the sandbox's clock); returns the auth token.
    public func signIn(_ identifier: String, at date: Date) async throws -> String {
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string(identifier)], issuedAt: date, lifetime: 600)
        let reply = await call("POST", "/auth/end_user", json: #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#)
        return try reply.decode(as: AuthResponse.self).authToken
    }
}
