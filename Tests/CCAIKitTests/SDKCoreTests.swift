import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import Testing

/// An SDK instance for the sandbox on `port`, authenticating through `delegate`.
func makeSDK(port: UInt16, delegate: SigningDelegate?, tokens: String? = nil, cache: Bool = true,
             language: String? = nil) throws -> CCAI {
    let ccai = CCAI()
    delegate?.ccai = ccai
    try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", delegate: delegate,
                                             languageCode: language, cacheAuthToken: cache, tokenDirectory: tokens))
    return ccai
}

/// Signs JWTs for an identifier, as an app's backend would, and counts the requests.
final class SigningDelegate: CCAIDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _calls = 0
    var calls: Int { lock.withLock { _calls } }
    let identifier: String
    let secret: String
    weak var ccai: CCAI?
    var returnsNothing = false

    init(identifier: String, secret: String = "dev-secret") {
        self.identifier = identifier
        self.secret = secret
    }

    func ccaiShouldAuthenticate() async -> String? {
        lock.withLock { _calls += 1 }
        guard !returnsNothing,
            let jwt = try? JWTSigner(algorithm: .hs384, secret: secret)
                .sign(["identifier": .string(identifier), "name": "Ana"], issuedAt: Date(), lifetime: 600)
        else { return nil }
        return try? await ccai?.authService?.authenticate(jwt)
    }
}

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

@Suite struct QueueMenuServiceTests {
    @Test func menusWaitTimesAndDirectAccess() async throws {
        let server = try Sandbox().serve()
        let ccai = CCAI()
        let delegate = SigningDelegate(identifier: "menus")
        delegate.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: delegate,
                                                 languageCode: "es", cacheAuthToken: false))
        let service = try #require(ccai.queueMenuService)
        let (menus, direct) = try await service.get()
        #expect(!direct && menus.first?.name == "Facturación", "the SDK's language by default")
        let (english, _) = try await service.get(language: "en")
        #expect(english.findMenu(byId: 21)?.name == "Devices")
        let (vip, isDirect) = try await service.get(key: "vip")
        #expect(isDirect && vip.map(\.id) == [9])
        #expect(try await service.getWaitTimes(menuId: 1) == WaitTimes(chat: 0, voiceCall: 0))
        do {
            _ = try await service.getWaitTimes(menuId: 404)
            Issue.record("expected not_found")
        } catch let error as CCAIError {
            #expect(error.code == .notFound && error.status == 404)
        }
        await server.stop()
    }
}

@Suite struct ChatServiceTests {
    @Test func startsResumesChecksAndEndsChats() async throws {
        let server = try Sandbox().serve()
        let ccai = CCAI()
        let delegate = SigningDelegate(identifier: "chatter")
        delegate.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: delegate,
                                                 cacheAuthToken: false))
        #expect(ccai.chatService == nil, "chat needs initializeChat")
        ccai.initializeChat(ChatOptions(downloadTranscriptVisibility: .hideAll, greeting: "Hi"))
        let service = try #require(ccai.chatService)
        #expect(service.options.downloadTranscriptVisibility == [.hideInOptionMenu, .hideInPostChat])
        #expect(try await service.getLastChatInProgress() == nil)
        let chat = try await service.start(request: ChatRequest(menuId: 8))
        #expect(chat.status == .queued && chat.lang == "en")
        do {
            try await service.start(request: ChatRequest(menuId: 7))
            Issue.record("expected a conflict")
        } catch let error as CCAIError {
            #expect(error.code == .conflict)
        }
        let other = CCAI()
        let otherDelegate = SigningDelegate(identifier: "chatter")
        otherDelegate.ccai = other
        try other.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", delegate: otherDelegate,
                                                  cacheAuthToken: false))
        other.initializeChat()
        let found = try #require(try await other.chatService!.getLastChatInProgress())
        try await other.chatService!.resumeChat(found)
        #expect(other.chatService!.currentChat?.id == chat.id, "a second device of the same user resumes it")
        try await other.chatService!.endChat()
        #expect(try await service.checkStatus().status == .ended)
        await #expect(throws: CCAIError.self) { try await service.resumeChat(chat) }
        await server.stop()
    }

    @Test func previewsOlderThanTheLastAreSkipped() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "previewer")
        let ccai = try makeSDK(port: server.port, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 8))
        let now = Date()
        #expect(try await service.sendMessagePreview("hel", at: now))
        #expect(try await service.sendMessagePreview("he", at: now.addingTimeInterval(-1)) == false)
        #expect(try await service.sendMessagePreview("hello", at: now.addingTimeInterval(1)))
        try await service.endChat()
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func chatEventsArriveThroughThePlatformStream() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "listener")
        let ccai = try makeSDK(port: server.port, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        var states = service.stateChanged.makeAsyncIterator()
        let chats = service.chatReceived
        #expect(await states.next() == .connecting, "subscribing starts the provider")
        #expect(await states.next() == .connected)
        let started = try await service.start(request: ChatRequest(menuId: 8))
        var seen: [ChatStatus] = []
        for await chat in chats {
            let chat = try #require(chat)
            #expect(chat.id == started.id)
            seen.append(chat.status)
            if chat.status == .active { try await service.endChat() }
            if chat.status == .ended { break }
        }
        #expect(seen == [.queued, .assigned, .active, .ended], "every change of the chat, in order: \(seen)")
        #expect(service.currentChat?.status == .ended)
        await server.stop()
        #expect(await states.next() == .disconnected, "the provider state, not the chat's")
        #expect(await states.next() == .connecting)
    }

    @Test(.timeLimit(.minutes(1))) func aProviderThatCannotAuthenticateSaysSo() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "nobody", secret: "wrong")
        let ccai = try makeSDK(port: server.port, delegate: delegate, cache: false)
        ccai.initializeChat()
        var states = try #require(ccai.chatService).stateChanged.makeAsyncIterator()
        #expect(await states.next() == .connecting)
        guard case .error(let message)? = await states.next() else { Issue.record("an error state"); return }
        #expect(message.contains("authenticate") || message.contains("token"), "\(message)")
        await server.stop()
    }
}
