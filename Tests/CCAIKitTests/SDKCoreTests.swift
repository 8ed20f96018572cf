import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

@Suite struct SDKCoreTests {
    private func tokenFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
    }

    @Test func servicesNeedInitialization() throws {
        let ccai = CCAI()
        #expect(ccai.companyService == nil && ccai.authService == nil)
        #expect(throws: CCAIError.self) { try ccai.initialize(options: InitOptions(key: "", urlHost: "x")) }
    }

    @Test func authenticatesThroughTheDelegateAndReadsTheCompany() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "sdk-1")
        let folder = tokenFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ccai = try makeSDK(port: server.port, delegate: delegate, tokens: folder)
        let company = try await ccai.companyService!.get()
        #expect(company.displayName == "Acme")
        #expect(company.languages == ["en", "es"])
        #expect(delegate.calls == 1)
        #expect(ccai.endUserService?.endUser?.identifier == "sdk-1")
        #expect(try await ccai.endUserService!.fetch().name == "Ana")
        #expect(delegate.calls == 1)

        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + files[0])
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let secondRun = SigningDelegate(identifier: "sdk-1")
        let again = try makeSDK(port: server.port, delegate: secondRun, tokens: folder)
        _ = try await again.companyService!.get()
        #expect(secondRun.calls == 0, "the cached token is reused")
        await server.stop()
    }

    @Test func aRefusedTokenTriggersOneReauthentication() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "sdk-2")
        let ccai = try makeSDK(port: server.port, delegate: delegate, cache: false)
        ccai.authService!.updateAuthToken("stale-token")
        #expect(try await ccai.companyService!.get().displayName == "Acme")
        #expect(delegate.calls == 1)
        #expect(ccai.authService!.authToken != "stale-token")
        await server.stop()
    }

    @Test func signingOutRevokesTheTokenOnThePlatform() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "sdk-signout")
        let ccai = try makeSDK(port: server.port, delegate: delegate, cache: false)
        _ = try await ccai.companyService!.get()
        let token = try #require(ccai.authService!.authToken)
        try await ccai.authService!.signOut()
        #expect(ccai.authService!.authToken == nil)
        let other = try makeSDK(port: server.port, delegate: nil, cache: false)
        other.authService!.updateAuthToken(token)
        await #expect(throws: CCAIError.self, "the old token is revoked, not only forgotten") {
            try await other.companyService!.get()
        }
        await server.stop()
    }

    @Test func authenticationFailuresAreClearErrors() async throws {
        let server = try Sandbox().serve()
        let noDelegate = try makeSDK(port: server.port, delegate: nil, cache: false)
        await #expect(throws: CCAIError.self) { try await noDelegate.companyService!.get() }
        let silent = SigningDelegate(identifier: "x")
        silent.returnsNothing = true
        let refused = try makeSDK(port: server.port, delegate: silent, cache: false)
        do {
            _ = try await refused.companyService!.get()
            Issue.record("expected unauthenticated")
        } catch let error as CCAIError {
            #expect(error.code == .unauthenticated)
        }
        let wrongSecret = try makeSDK(port: server.port, delegate: nil, cache: false)
        let jwt = try JWTSigner(algorithm: .hs384, secret: "wrong").sign(["identifier": "x"], issuedAt: Date(), lifetime: 60)
        do {
            _ = try await wrongSecret.authService!.authenticate(jwt)
            Issue.record("expected a refusal")
        } catch let error as CCAIError {
            #expect(error.code == .unauthenticated && error.status == 401)
            #expect(error.message.contains("signature"))
        }
        await server.stop()
    }

    @Test func anUnreachablePlatformIsUnavailable() async throws {
        let server = try Sandbox().serve()
        let port = server.port
        await server.stop()
        let ccai = CCAI(http: HTTPClient(retryPolicy: .init(maximumRetries: 1, initialBackoff: 0.01)))
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", cacheAuthToken: false))
        ccai.authService!.updateAuthToken("t")
        do {
            _ = try await ccai.companyService!.get()
            Issue.record("expected unavailable")
        } catch let error as CCAIError {
            #expect(error.code == .unavailable && error.retryable)
        }
    }

    @Test func languageResolution() async throws {
        #expect(LanguageService.resolve(explicit: "fr", device: "es-CU", enabled: ["en", "es"]) == "fr")
        #expect(LanguageService.resolve(explicit: nil, device: "es", enabled: ["en", "es"]) == "es")
        #expect(LanguageService.resolve(explicit: nil, device: "es-CU", enabled: ["en", "es"]) == "es")
        #expect(LanguageService.resolve(explicit: nil, device: "de-AT", enabled: ["en", "es"]) == "en")
        #expect(LanguageService.resolve(explicit: nil, device: nil, enabled: ["es"]) == "en")

        let server = try Sandbox().serve()
        let ccai = try makeSDK(port: server.port, delegate: SigningDelegate(identifier: "lang"), cache: false, language: "es")
        #expect(ccai.languageService!.languageCode == "es")
        try ccai.languageService!.setLanguageCode("en")
        #expect(ccai.languageService!.languageCode == "en")
        await server.stop()
    }
}
