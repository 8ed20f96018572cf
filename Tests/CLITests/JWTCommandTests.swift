import Foundation
import Testing

@Suite struct JWTCommandTests {
    @Test func signsTokensWithClaims() async throws {
        let output = try await CLI.run(["jwt", "sign", "--secret", "dev-secret", "--alg", "HS256",
                                  "--claims", #"{"identifier":"user-1"}"#, "--ttl", "60"])
        #expect(output.status == 0, "\(output.stderr)")
        let parts = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        #expect(parts.count == 3)
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONSerialization.jsonObject(with: Data(base64Encoded: payload)!) as! [String: Any]
        #expect(claims["identifier"] as? String == "user-1")
        #expect((claims["exp"] as! Int) - (claims["iat"] as! Int) == 60)
    }

    /// The safe pattern for --jwt-command: the identity document goes through whole, so an
    /// identifier cannot add claims (it could when the JSON was built in the shell).
    @Test func claimsFromStandardInputCannotBeInjected() async throws {
        let hostile = #"{"identifier":"x\",\"admin\":true,\"y\":\""}"#
        let output = try await CLI.run(["jwt", "sign", "--claims", "-"], environment: ["CCAI_COMPANY_SECRET": "dev-secret"],
                                 input: Data(hostile.utf8))
        #expect(output.status == 0, "\(output.stderr)")
        let parts = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONSerialization.jsonObject(with: Data(base64Encoded: payload)!) as! [String: Any]
        #expect(claims["identifier"] as? String == #"x","admin":true,"y":""#)
        #expect(claims["admin"] == nil)
    }

    @Test(arguments: [
        (["jwt"], "jwt needs a command: sign"),
        (["jwt", "verify"], "unknown jwt command 'verify'"),
        (["jwt", "sign"], "jwt sign needs --secret"),
        (["jwt", "sign", "--secret", "s", "--alg", "RS256"], "--alg must be HS384 or HS256"),
        (["jwt", "sign", "--secret", "s", "--claims", "[1]"], "--claims must be a JSON object"),
        (["jwt", "sign", "--secret", "s", "--ttl", "-5"], "--ttl expects a positive number"),
        (["jwt", "sign", "--secret", "s", "--ttl", "1e300"], "at most 100 years"),
        (["jwt", "sign", "--secret", "s", "--ttl", "inf"], "--ttl expects a positive number"),
        (["jwt", "sign", "--secret", "s", "--secret-file", "f"], "exclude each other"),
        (["jwt", "sign", "--secret-file", "/nonexistent/secret"], "cannot read"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}
