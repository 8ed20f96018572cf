import CCAIKit
import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Testing

@Suite struct SDKBindingsTests {
    private func run(_ source: String, sdk: CCAI) async throws -> [LuaValue] {
        let state = try await ScriptRunner(logger: CapturingLogger(), sdk: sdk).makeState()
        return try await state.run(source: source, chunkName: "=bindings")
    }

    @Test func servicesBeforeInitializationRaiseNotInitialized() async throws {
        let results = try await run("""
            local ok, err = pcall(ccai.company.get)
            return err.code, err.service, err.method, tostring(err)
            """, sdk: CCAI())
        #expect(results == ["not_initialized", "company", "get",
                            "ccai.company.get: the SDK is not initialized [not_initialized]"])
    }

    @Test func argumentsAreChecked() async throws {
        let server = try Sandbox().serve()
        let sdk = CCAI()
        let delegate = HostAuthenticator(signing: .secret("dev-secret", .hs384), identity: EndUser(identifier: "b-1"), ccai: sdk)
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: delegate,
                                                cacheAuthToken: false))
        let results = try await run("""
            local r = {}
            for _, f in ipairs({
              function() ccai.end_user.update_end_user({ id = "seven" }) end,
              function() ccai.end_user.update_end_user(42) end,
              function() ccai.language.set_language_code("") end,
              function() ccai.auth.authenticate() end,
            }) do
              local ok, err = pcall(f)
              r[#r + 1] = err.message
            end
            local company = ccai.company.get()
            return company.display_name, table.unpack(r)
            """, sdk: sdk)
        #expect(results[0] == "Acme")
        #expect(results[1].stringValue?.hasPrefix("bad argument #1 'end_user' to 'update_end_user' (field 'id'") == true)
        #expect(results[2] == "bad argument #1 'end_user' to 'update_end_user' (table expected, got number)")
        #expect(results[3] == "bad argument #1 'language_code' to 'set_language_code' (a language code expected, got '')")
        #expect(results[4] == "bad argument #1 'jwt' to 'authenticate' (field 'jwt' is required)")
        withExtendedLifetime(delegate) {}
        await server.stop()
    }
}
