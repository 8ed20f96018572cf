import CCAIKit
import CCAISandbox
@testable import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Testing

/// The company secret stays with the host (LUA-API section 8, docs/security.md).
@Suite struct HostSecretTests {
    /// Signed custom data is nested under `custom_data`: a script cannot have the host sign
    /// an identity it could sign in with.
    @Test func signedCustomDataCannotMintAnIdentity() async throws {
        let server = try Sandbox().serve()
        let sdk = CCAI()
        let host = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "vu-1"), ccai: sdk)
        let minted = try host.signClaims(["custom_data": ["identifier": "admin"]])
        let response = try await HTTPClient().send(HTTPClientRequest(
            method: "POST", url: "\(server.baseURL)/auth/end_user", headers: ["Content-Type": "application/json"],
            body: Data(#"{"company_key":"dev-key","jwt":"\#(minted)"}"#.utf8)))
        let reply = (response.status, String(decoding: response.body, as: UTF8.self))
        #expect(reply.0 == 401 && reply.1.contains("'identifier' claim is required"), "\(reply)")
        await server.stop()
    }

    /// Against a real platform the operator decides whom a script may be: a script that
    /// sets another identifier, or asks for signed claims the operator did not list, gets
    /// `forbidden` naming the flag; the JWT command is not even run for such an identity.
    /// The profile a script sets goes into the JWT, where the platform takes it as
    /// verified, only as `--signed-claims` says (issue 38, item 11); against the embedded
    /// sandbox (no policy) all of it.
    @Test func theProfileIsSignedOnlyAsSignedClaimsSay() async throws {
        let user = EndUser(name: "Ana", identifier: "vu-1", email: "ana@example.com", phone: "+15550100")
        func claims(_ policy: IdentityPolicy?) async throws -> [String: JSONValue] {
            let host = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: user, ccai: CCAI(), policy: policy)
            let jwt = try await host.makeJWT()
            return try JWTVerifier(secret: "dev-secret", algorithms: [.hs384], maximumLifetime: 3600).verify(jwt, now: Date())
        }
        let none = try await claims(IdentityPolicy())
        #expect(none["identifier"] == "vu-1" && none["name"] == nil && none["email"] == nil && none["phone"] == nil, "\(none)")
        let some = try await claims(IdentityPolicy(signedClaims: ["email", "order_id"]))
        #expect(some["email"] == "ana@example.com" && some["name"] == nil && some["phone"] == nil, "\(some)")
        let embedded = try await claims(nil)
        #expect(embedded["name"] == "Ana" && embedded["email"] == "ana@example.com" && embedded["phone"] == "+15550100")
    }

    @Test func theHostSignsOnlyTheIdentitiesAndClaimsTheOperatorAllows() async throws {
        let server = try Sandbox().serve()
        let policy = IdentityPolicy()
        let sdk = CCAI()
        let host = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "vu-1"), ccai: sdk,
                                     policy: policy)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: host,
                                                cacheAuthToken: false))
        #expect(try await sdk.companyService!.get().displayName == "Acme", "vu-1 matches the default vu-*")
        sdk.endUserService!.updateEndUser(EndUser(identifier: "real-customer-42"))
        sdk.authService!.updateAuthToken(nil)
        do {
            _ = try await sdk.companyService!.get()
            Issue.record("signed in as real-customer-42")
        } catch let error as CCAIError {
            #expect(error.code == .forbidden && error.message.contains("--identities") && error.message.contains("real-customer-42"),
                    "\(error)")
        }
        let verified: [String: JSONValue] = ["custom_data": ["reserved_verified_customer": ["label": "V", "value": true]]]
        #expect {
            try host.signClaims(verified)
        } throws: { error in
            (error as? CCAIError)?.code == .forbidden && (error as? CCAIError)?.message.contains("--signed-claims") == true
        }
        let allowing = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "vu-1"), ccai: sdk,
                                         policy: IdentityPolicy(identities: ["real-*"], signedClaims: ["reserved_verified_customer"]))
        #expect(try allowing.signClaims(verified).split(separator: ".").count == 3)
        let embedded = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "vu-1"), ccai: sdk)
        #expect(try embedded.signClaims(verified).split(separator: ".").count == 3, "the embedded sandbox: anyone, anything")

        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-command-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let commandSDK = CCAI()
        let command = HostAuthenticator(signing: .command("echo \"$CCAI_IDENTIFIER\" >> \(marker); exit 1"),
                                        identity: EndUser(identifier: "vu-1"), ccai: commandSDK, policy: policy)
        try commandSDK.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: command,
                                                       cacheAuthToken: false))
        commandSDK.endUserService!.updateEndUser(EndUser(identifier: "real-customer-42"))
        await #expect(throws: CCAIError.self) { try await commandSDK.companyService!.get() }
        #expect(!FileManager.default.fileExists(atPath: marker), "the command was not handed real-customer-42")
        withExtendedLifetime([host, allowing, embedded, command]) {}
        await server.stop()
    }

    /// The identity globs are fnmatch(3)'s; a malformed one is told, not guessed at.
    @Test func identityPatternsAreGlobs() {
        let policy = IdentityPolicy(identities: ["vu-*", "load-[0-9]?"])
        #expect(policy.allows(identifier: "vu-1") && policy.allows(identifier: "vu-") && policy.allows(identifier: "load-7a"))
        #expect(!policy.allows(identifier: "real-customer-42") && !policy.allows(identifier: "xvu-1")
                && !policy.allows(identifier: "load-x1") && !policy.allows(identifier: "VU-1"))
        #expect(IdentityPolicy().identities == ["vu-*"] && IdentityPolicy().signedClaims.isEmpty)
        #expect(IdentityPolicy.problem(withPattern: "vu-*") == nil && IdentityPolicy.problem(withPattern: "[]x]*") == nil)
        #expect(IdentityPolicy.problem(withPattern: "")?.contains("empty") == true)
        #expect(IdentityPolicy.problem(withPattern: "vu-[0-9")?.contains("'['") == true)
        #expect(IdentityPolicy.problem(withPattern: "vu-\u{1B}*")?.contains("control") == true)
    }

    /// An identifier is matched whole: a NUL once ended the C string fnmatch(3) read, so
    /// `vu-1\0alice` passed `vu-*` and was signed with the NUL (issue 38, item 9). No
    /// identifier with a control character is signed, whatever the globs.
    @Test func anIdentifierWithAControlCharacterIsNeverSigned() {
        let policy = IdentityPolicy(identities: ["vu-[0-9]", "*"])
        for identifier in ["vu-1\0alice", "vu-1\nalice", "alice\u{1B}[2J", "vu-1\u{7F}", "vu-1\u{85}"] {
            #expect(!policy.allows(identifier: identifier), "\(identifier.debugDescription)")
            #expect(throws: CCAIError.self) { try policy.permit(identifier: identifier) }
        }
        do {
            try policy.permit(identifier: "vu-1\0alice")
        } catch let error as CCAIError {
            #expect(error.code == .forbidden && error.message.contains("control character") && !error.message.contains("\0"),
                    "\(error.message)")
        } catch { Issue.record("\(error)") }
        #expect(policy.allows(identifier: "vu-1") && policy.allows(identifier: "anyone"))
    }

    /// Nothing a script can reach holds the secret: not the `ccai` module, not its logs.
    @Test func theSecretIsNotReachableFromScripts() async throws {
        let server = try Sandbox().serve()
        let sdk = CCAI()
        let host = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "vu-secret"), ccai: sdk)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: host,
                                                cacheAuthToken: false))
        let logger = CapturingLogger()
        var runner = ScriptRunner(logger: logger, sdk: sdk)
        runner.signer = host
        let state = try await runner.makeState()
        let results = try await state.run(source: """
            local found, seen = {}, {}
            local function walk(value, path)
              if type(value) == "string" and value:find("dev-secret", 1, true) then found[#found + 1] = path end
              if type(value) ~= "table" or seen[value] then return end
              seen[value] = true
              for key, inner in pairs(value) do walk(inner, path .. "." .. tostring(key)) end
            end
            walk(ccai, "ccai")
            walk(_G, "_G")
            walk(ccai.options.get(), "options")
            ccai.log.info("company", ccai.company.get())
            return #found
            """, chunkName: "=secret")
        #expect(results == [0])
        #expect(!logger.records.map { StreamLogger.format($0) }.joined().contains("dev-secret"))
        withExtendedLifetime(host) {}
        await server.stop()
    }
}
