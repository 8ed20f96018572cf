import CCAIWire
import Foundation
import Testing

@Suite struct JWTTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func token(_ algorithm: JWTAlgorithm = .hs384, secret: String = "dev-secret", issuedAt: Date? = nil,
                       lifetime: TimeInterval = 600) throws -> String {
        try JWTSigner(algorithm: algorithm, secret: secret)
            .sign(["identifier": "vu-1", "name": "Ana"], issuedAt: issuedAt ?? now, lifetime: lifetime)
    }

    /// A token with any header and payload, signed with HS256 over what is given.
    private func handmade(header: String, payload: String, secret: String = "dev-secret") -> String {
        let encode = { (text: String) in
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let input = encode(header) + "." + encode(payload)
        return input + "." + (try! JWTSigner.signature(of: input, algorithm: .hs256, secret: secret))
    }

    @Test(arguments: JWTAlgorithm.allCases)
    func signedTokensVerify(_ algorithm: JWTAlgorithm) throws {
        let claims = try JWTVerifier(secret: "dev-secret").verify(try token(algorithm), now: now)
        #expect(claims["identifier"] == "vu-1")
        #expect(claims["iat"] == .integer(1_700_000_000))
        #expect(claims["exp"] == .integer(1_700_000_600))
    }

    @Test func verifiesAKnownHS256Token() {
        let jwtIO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        // The signature matches; the token then fails only for lacking the mandatory 'exp'.
        #expect(throws: JWTError.missingClaim("exp")) {
            try JWTVerifier(secret: "your-256-bit-secret").verify(jwtIO, now: Date(timeIntervalSince1970: 1_516_239_022))
        }
        #expect(throws: JWTError.badSignature) {
            try JWTVerifier(secret: "another-secret").verify(jwtIO)
        }
    }

    @Test func refusesAlgNoneAndOtherAlgorithms() throws {
        let payload = #"{"iat":1700000000,"exp":1700000600}"#
        let none = handmade(header: #"{"alg":"none","typ":"JWT"}"#, payload: payload).split(separator: ".")[0...1]
            .joined(separator: ".") + "."
        #expect(throws: JWTError.unsupportedAlgorithm("none")) { try JWTVerifier(secret: "dev-secret").verify(none, now: now) }
        let hs512 = handmade(header: #"{"alg":"HS512"}"#, payload: payload)
        #expect(throws: JWTError.unsupportedAlgorithm("HS512")) { try JWTVerifier(secret: "dev-secret").verify(hs512, now: now) }
        let onlyHS384 = JWTVerifier(secret: "dev-secret", algorithms: [.hs384])
        #expect(throws: JWTError.unsupportedAlgorithm("HS256")) { try onlyHS384.verify(try token(.hs256), now: now) }
    }

    @Test func refusesTamperedTokensAndWrongSecrets() throws {
        let valid = try token()
        var parts = valid.split(separator: ".").map(String.init)
        parts[1] = try JWTSigner(algorithm: .hs384, secret: "x").sign(["identifier": "admin", "iat": 1_700_000_000,
                                                                          "exp": 1_700_000_600])
            .split(separator: ".")[1].description
        #expect(throws: JWTError.badSignature) { try JWTVerifier(secret: "dev-secret").verify(parts.joined(separator: "."), now: now) }
        #expect(throws: JWTError.badSignature) { try JWTVerifier(secret: "other").verify(valid, now: now) }
    }

    @Test func checksTheTimesWithLeeway() throws {
        let verifier = JWTVerifier(secret: "dev-secret", leeway: 30)
        #expect(throws: JWTError.expired) { try verifier.verify(try token(lifetime: 600), now: now.addingTimeInterval(700)) }
        #expect(throws: Never.self) { try verifier.verify(try token(lifetime: 600), now: now.addingTimeInterval(620)) }
        #expect(throws: JWTError.issuedInTheFuture) { try verifier.verify(try token(issuedAt: now.addingTimeInterval(120)), now: now) }
        #expect(throws: Never.self) { try verifier.verify(try token(issuedAt: now.addingTimeInterval(20)), now: now) }
        let noTimes = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(["identifier": "x"])
        #expect(throws: JWTError.missingClaim("iat")) { try verifier.verify(noTimes, now: now) }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!!.e30.sig", "e30.e30.sig", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.x"])
    func refusesMalformedTokens(_ text: String) {
        #expect(throws: JWTError.self) { try JWTVerifier(secret: "dev-secret").verify(text, now: now) }
    }

    @Test func jsonValuesRoundTrip() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", true, nil], "b": ["c": "d/e"]]
        let text = try value.jsonText()
        #expect(text == #"{"a":[1,2.5,"x",true,null],"b":{"c":"d/e"}}"#)
        #expect(try JSONValue(jsonText: text) == value)
    }
}
