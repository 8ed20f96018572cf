import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

@Suite struct SandboxAuthTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func jwt(_ claims: [String: JSONValue] = ["identifier": "user-1", "name": "Ana", "email": "ana@acme.test"],
                     algorithm: JWTAlgorithm = .hs384, secret: String = "dev-secret", issuedAt: Date? = nil) throws -> String {
        try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: issuedAt ?? start, lifetime: 600)
    }

    private func body(_ jwt: String, key: String = "dev-key") -> Data {
        Data(#"{"company_key": "\#(key)", "jwt": "\#(jwt)"}"#.utf8)
    }

    private func authenticate(_ server: HTTPServer, _ jwt: String) async throws -> AuthResponse {
        let reply = try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: body(jwt))
        #expect(reply.status == 200, "\(reply.body)")
        return try JSONDecoder().decode(AuthResponse.self, from: Data(reply.body.utf8))
    }

    @Test func aSignedJWTBuysATokenThatReadsTheCompany() async throws {
        let sandbox = try Sandbox(clock: ManualClock(start))
        let server = try sandbox.serve()
        let auth = try await authenticate(server, try jwt())
        #expect(auth.endUser.identifier == "user-1" && auth.endUser.name == "Ana")
        #expect(auth.expiresAt == Int64(start.timeIntervalSince1970) + 86_400)
        let company = try await Curl.request("GET", "\(server.baseURL)/company",
                                             headers: ["Authorization": "Bearer \(auth.authToken)"])
        #expect(company.status == 200)
        #expect(company.body == #"{"display_name":"Acme","languages":["en","es"],"prevent_direct_pstn_call":false,"support_email":"help@acme.test","time_zone":"America/Los_Angeles"}"#)
        let again = try await authenticate(server, try jwt(["identifier": "user-1"], algorithm: .hs256))
        #expect(again.endUser.id == auth.endUser.id)
        #expect(again.endUser.email == "ana@acme.test")
        await server.stop()
    }

    @Test func everyOtherEndpointNeedsAValidToken() async throws {
        let clock = ManualClock(start)
        let sandbox = try Sandbox(clock: clock)
        let server = try sandbox.serve()
        #expect(try await Curl.request("GET", "\(server.baseURL)/company").status == 401)
        let wrong = try await Curl.request("GET", "\(server.baseURL)/company", headers: ["Authorization": "Bearer nope"])
        #expect(wrong.status == 401)
        #expect(wrong.body.contains("unknown, revoked or expired"))
        let auth = try await authenticate(server, try jwt())
        clock.advance(by: 86_401)
        let expired = try await Curl.request("GET", "\(server.baseURL)/end_user",
                                             headers: ["Authorization": "Bearer \(auth.authToken)"])
        #expect(expired.status == 401)
        await server.stop()
    }

    @Test func refusedJWTsAreA401ThatSaysWhy() async throws {
        let sandbox = try Sandbox(configuration: SandboxConfiguration(company: .init(
            name: "Acme", supportEmail: nil, languages: ["en"], timeZone: "UTC", preventDirectPstnCall: nil,
            key: "dev-key", secret: "dev-secret", jwtAlgorithms: ["HS384"], authTokenSeconds: nil)), clock: ManualClock(start))
        let server = try sandbox.serve()
        let payload = #"{"exp":1800000600,"iat":1800000000,"identifier":"x"}"#
        let encode = { (text: String) in
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let none = encode(#"{"alg":"none"}"#) + "." + encode(payload) + "."
        let cases: [(String, String)] = [
            (try jwt(secret: "wrong"), "the signature does not match"),
            (try jwt(algorithm: .hs256), "unsupported signing algorithm 'HS256'"),
            (none, "unsupported signing algorithm 'none'"),
            (try jwt(issuedAt: start.addingTimeInterval(-3_600)), "the token has expired"),
            (try jwt(issuedAt: start.addingTimeInterval(3_600)), "issued in the future"),
            (try jwt(["name": "no identifier"]), "the 'identifier' claim is required"),
            ("not.a.jwt", "malformed token"),
        ]
        for (token, message) in cases {
            let reply = try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: body(token))
            #expect(reply.status == 401, "\(message): \(reply.body)")
            #expect(reply.body.contains(message), "\(reply.body)")
        }
        let unknownKey = try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: body(try jwt(), key: "other"))
        #expect(unknownKey.status == 401 && unknownKey.body.contains("unknown company key"))
        let malformed = try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: Data(#"{"jwt": 5}"#.utf8))
        #expect(malformed.status == 400)
        await server.stop()
    }

    @Test func endUsersSeeOnlyThemselves() async throws {
        let sandbox = try Sandbox(clock: ManualClock(start))
        let server = try sandbox.serve()
        let ana = try await authenticate(server, try jwt())
        let bob = try await authenticate(server, try jwt(["identifier": "user-2", "name": "Bob"]))
        #expect(ana.endUser.id != bob.endUser.id)
        let patched = try await Curl.request("PATCH", "\(server.baseURL)/end_user", body: Data(#"{"phone": "+14155550100"}"#.utf8),
                                             headers: ["Authorization": "Bearer \(bob.authToken)"])
        #expect(patched.status == 200 && patched.body.contains(#""name":"Bob""#) && patched.body.contains("+14155550100"))
        let takeover = try await Curl.request("PATCH", "\(server.baseURL)/end_user", body: Data(#"{"identifier": "user-1"}"#.utf8),
                                              headers: ["Authorization": "Bearer \(bob.authToken)"])
        #expect(takeover.status == 403 && takeover.body.contains(#""code":"forbidden""#))
        let anaView = try await Curl.request("GET", "\(server.baseURL)/end_user", headers: ["Authorization": "Bearer \(ana.authToken)"])
        #expect(anaView.body.contains(#""identifier":"user-1""#) && !anaView.body.contains("+14155550100"))
        await server.stop()
    }

    /// A token's caller comes from memory (TokenRegistry): it follows the profile as a
    /// PATCH or a later sign-in changes it, is gone once signed out while the user's other
    /// token still works, and a token signed with custom data larger than memory keeps is
    /// served from the store.
    @Test func aTokensCallerFollowsItsProfile() async throws {
        let sandbox = try Sandbox(clock: ManualClock(start))
        let server = try sandbox.serve()
        func me(_ token: String) async throws -> Curl.Reply {
            try await Curl.request("GET", "\(server.baseURL)/end_user", headers: ["Authorization": "Bearer \(token)"])
        }
        let first = try await authenticate(server, try jwt())
        let patched = try await Curl.request("PATCH", "\(server.baseURL)/end_user", body: Data(#"{"phone": "+14155550100"}"#.utf8),
                                             headers: ["Authorization": "Bearer \(first.authToken)"])
        #expect(patched.status == 200)
        #expect(try await me(first.authToken).body.contains("+14155550100"))
        let second = try await authenticate(server, try jwt(["identifier": "user-1", "name": "Ana Bell"]))
        let renamed = try await me(first.authToken)
        #expect(renamed.body.contains(#""name":"Ana Bell""#) && renamed.body.contains("+14155550100"), "\(renamed.body)")
        let signedOut = try await Curl.request("DELETE", "\(server.baseURL)/auth/end_user",
                                               headers: ["Authorization": "Bearer \(first.authToken)"])
        #expect(signedOut.status == 204)
        #expect(try await me(first.authToken).status == 401)
        #expect(try await me(second.authToken).body.contains(#""name":"Ana Bell""#))
        let note = JSONValue.string(String(repeating: "x", count: 1_000))
        let large = try await authenticate(server, try jwt(["identifier": "user-3", "custom_data": ["note": note]]))
        let stored = try await me(large.authToken)
        #expect(stored.status == 200 && stored.body.contains(#""identifier":"user-3""#), "\(stored.body)")
        await server.stop()
    }

    @Test func aRestartWithTheSameDataLosesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try Sandbox(dataDirectory: folder, clock: ManualClock(start))
        let server = try first.serve()
        let auth = try await authenticate(server, try jwt())
        await server.stop()
        let second = try Sandbox(dataDirectory: folder, clock: ManualClock(start.addingTimeInterval(60)))
        let restarted = try second.serve()
        let me = try await Curl.request("GET", "\(restarted.baseURL)/end_user", headers: ["Authorization": "Bearer \(auth.authToken)"])
        #expect(me.status == 200)
        #expect(me.body.contains(#""id":\#(auth.endUser.id!)"#))
        await restarted.stop()
    }
}
