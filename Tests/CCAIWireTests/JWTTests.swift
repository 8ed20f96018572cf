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

    @Test func claimsReadWithoutVerifyingForTheAppsOwnData() throws {
        let signed = try token()
        #expect(JWTPayload.claims(of: signed)?["identifier"] == "vu-1")
        #expect(JWTPayload.claims(of: signed + "tampered")?["name"] == "Ana")
        for text in ["", "a.b", "a.b.c.d", "h.!!!.sig", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.x", "e30.WzFd.x"] {
            #expect(JWTPayload.claims(of: text) == nil, "\(text)")
        }
    }

    @Test func jsonValuesRoundTrip() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", true, nil], "b": ["c": "d/e"]]
        let text = try value.jsonText()
        #expect(text == #"{"a":[1,2.5,"x",true,null],"b":{"c":"d/e"}}"#)
        #expect(try JSONValue(jsonText: text) == value)
    }

    /// Each token has one spelling and one meaning: no padding, no alternative encodings,
    /// no claim twice, no lifetime of years.
    @Test func ambiguousOrOverlongTokensAreRefused() throws {
        let verifier = JWTVerifier(secret: "dev-secret")
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let payload = #"{"exp":1700000600,"iat":1700000000,"identifier":"vu-1"}"#
        #expect(try verifier.verify(handmade(header: header, payload: payload), now: now)["identifier"] == "vu-1")
        let duplicate = handmade(header: header, payload: #"{"exp":1700000600,"iat":1700000000,"identifier":"vu-1","identifier":"admin"}"#)
        #expect(throws: JWTError.duplicateKey("identifier")) { try verifier.verify(duplicate, now: now) }
        let nested = handmade(header: header, payload: #"{"exp":1700000600,"iat":1700000000,"identifier":"x","custom_data":{"a":1,"a":2}}"#)
        #expect(throws: JWTError.duplicateKey("a")) { try verifier.verify(nested, now: now) }
        let sameKeyInTwoObjects = handmade(header: header,
                                           payload: #"{"exp":1700000600,"iat":1700000000,"identifier":"x","a":{"b":1},"c":{"b":2}}"#)
        #expect(throws: Never.self) { try verifier.verify(sameKeyInTwoObjects, now: now) }
        let duplicateHeader = handmade(header: #"{"alg":"HS256","alg":"none"}"#, payload: payload)
        #expect(throws: JWTError.duplicateKey("alg")) { try verifier.verify(duplicateHeader, now: now) }

        let good = handmade(header: header, payload: payload)
        var parts = good.split(separator: ".").map(String.init)
        let padded = parts[0] + "=." + parts[1] + "." + parts[2]
        #expect(throws: JWTError.self) { try verifier.verify(padded, now: now) }
        let last = parts[2].removeLast()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let index = alphabet.firstIndex(of: last)!
        let sibling = alphabet[index ^ 1]
        let nonCanonical = parts.joined(separator: ".") + String(sibling)
        #expect(throws: JWTError.self, "a signature whose unused bits differ decodes to the same bytes: refused") {
            try verifier.verify(nonCanonical, now: now)
        }

        let longLived = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(["identifier": "x"], issuedAt: now, lifetime: 90_000)
        #expect(throws: JWTError.lifetimeTooLong(maximum: 86_400)) { try verifier.verify(longLived, now: now) }
        let configured = JWTVerifier(secret: "dev-secret", maximumLifetime: 100_000)
        #expect(try configured.verify(longLived, now: now)["identifier"] == "x")
        for lifetime in [1e300, .infinity, .nan, -1, 0] {
            #expect(throws: JWTError.invalidLifetime) {
                try JWTSigner(algorithm: .hs256, secret: "s").sign([:], issuedAt: now, lifetime: lifetime)
            }
        }
    }

    @Test func numbersFromOutsideConvertWithoutTrapping() {
        #expect(Checked.integer(1e300) == nil && Checked.integer(.infinity) == nil && Checked.integer(.nan) == nil)
        #expect(Checked.integer(-0.0) == 0 && Checked.integer(42) == 42 && Checked.integer(1.5) == nil)
        #expect(Checked.integer(9_223_372_036_854_775_807.0) == nil, "2^63 is beyond Int")
        #expect(Checked.truncated(-1.9) == -1 && Checked.truncated(-.infinity) == nil)
    }

    @Test func logTextCannotFakeLinesOrDriveTheTerminal() {
        #expect(TerminalText.escaped("plain text") == "plain text")
        #expect(TerminalText.escaped("a\nb\r\u{1b}]0;title\u{7}\u{9b}") == #"a\nb\r\u{1b}]0;title\u{7}\u{9b}"#)
        #expect(TerminalText.escaped("line 1\n\tline 2\u{1b}[2J", keepingNewlines: true) == "line 1\n\tline 2\\u{1b}[2J")
    }
}
