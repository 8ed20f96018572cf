import CCAISandbox
import CCAIWire
import Foundation

/// An end user's calls to a sandbox's router in the same process: no sockets, the same
/// admission and handlers as the server (`HTTPRouter.respond(to:)`).
struct InProcessClient {
    let sandbox: Sandbox
    let router: HTTPRouter

    init(_ sandbox: Sandbox) {
        self.sandbox = sandbox
        router = sandbox.router
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }

        func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
            try JSONDecoder().decode(type, from: body)
        }
    }

    func call(_ method: String, _ path: String, token: String? = nil, json: String? = nil) async -> Reply {
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if json != nil { headers["content-type"] = "application/json" }
        let response = await router.respond(to: HTTPRequest(method: method, path: path, headers: headers,
                                                            body: Data((json ?? "").utf8)))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// Signs `identifier` in with the built-in company's secret; returns the auth token.
    func signIn(_ identifier: String, at date: Date = QueueMenuTests.mondayMorning) async throws -> String {
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": .string(identifier)], issuedAt: date, lifetime: 600)
        let reply = await call("POST", "/auth/end_user", json: #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#)
        return try reply.decode(as: AuthResponse.self).authToken
    }
}
