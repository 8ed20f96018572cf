import CCAIKit
import CCAISandbox
import CCAIScripting
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
