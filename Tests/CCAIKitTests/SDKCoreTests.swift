import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

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
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "sdk-1")
        let folder = tokenFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ccai = try makeSDK(sandbox, delegate: delegate, tokens: folder)
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
        let again = try makeSDK(sandbox, delegate: secondRun, tokens: folder)
        _ = try await again.companyService!.get()
        #expect(secondRun.calls == 0, "the cached token is reused")
    }

    /// Calls that need a token while the delegate signs in wait for that sign-in: a chat's
    /// start and its event stream asked at once and signed in twice, and 10,000 VUs passed
    /// the company's sign-in burst.
    @Test(.timeLimit(.minutes(1))) func callsAskingAtOnceSignInOnce() async throws {
        let sandbox = try Sandbox()
        let delegate = GatedDelegate(identifier: "sdk-once")
        let ccai = CCAI(http: HTTPClient(transport: RouterTransport(router: sandbox.router)))
        delegate.signing.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: inProcessHost, delegate: delegate, cacheAuthToken: false))
        let names = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await ccai.companyService!.get().displayName } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await eventually { delegate.asked >= 1 })
        await delegate.gate.open()
        #expect(try await names.value == Array(repeating: "Acme", count: 8))
        #expect(delegate.asked == 1 && delegate.signing.calls == 1)
    }

    @Test func aRefusedTokenTriggersOneReauthentication() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "sdk-2")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.authService!.updateAuthToken("stale-token")
        #expect(try await ccai.companyService!.get().displayName == "Acme")
        #expect(delegate.calls == 1)
        #expect(ccai.authService!.authToken != "stale-token")
    }

    @Test func signingOutRevokesTheTokenOnThePlatform() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "sdk-signout")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        _ = try await ccai.companyService!.get()
        let token = try #require(ccai.authService!.authToken)
        try await ccai.authService!.signOut()
        #expect(ccai.authService!.authToken == nil)
        let other = try makeSDK(sandbox, delegate: nil, cache: false)
        other.authService!.updateAuthToken(token)
        await #expect(throws: CCAIError.self, "the old token is revoked, not only forgotten") {
            try await other.companyService!.get()
        }
    }

    @Test func authenticationFailuresAreClearErrors() async throws {
        let sandbox = try Sandbox()
        let noDelegate = try makeSDK(sandbox, delegate: nil, cache: false)
        await #expect(throws: CCAIError.self) { try await noDelegate.companyService!.get() }
        let silent = SigningDelegate(identifier: "x")
        silent.returnsNothing = true
        let refused = try makeSDK(sandbox, delegate: silent, cache: false)
        do {
            _ = try await refused.companyService!.get()
            Issue.record("expected unauthenticated")
        } catch let error as CCAIError {
            #expect(error.code == .unauthenticated)
        }
        let wrongSecret = try makeSDK(sandbox, delegate: nil, cache: false)
        let jwt = try JWTSigner(algorithm: .hs384, secret: "wrong").sign(["identifier": "x"], issuedAt: Date(), lifetime: 60)
        do {
            _ = try await wrongSecret.authService!.authenticate(jwt)
            Issue.record("expected a refusal")
        } catch let error as CCAIError {
            #expect(error.code == .unauthenticated && error.status == 401)
            #expect(error.message.contains("signature"))
        }
    }

    /// Only `localhost` and literal loopback addresses get plain HTTP by default; a name
    /// that merely starts like one is a remote host and gets HTTPS. An explicit scheme is
    /// the operator's choice and stays.
    @Test(arguments: [
        ("127.0.0.1:8787", "http://127.0.0.1:8787"), ("127.8.9.10", "http://127.8.9.10"), ("localhost:80", "http://localhost:80"),
        ("LOCALHOST", "http://LOCALHOST"), ("[::1]:8787", "http://[::1]:8787"), ("::1", "http://[::1]"),
        ("127.attacker.example", "https://127.attacker.example"), ("127.0.0.1.attacker.example:80", "https://127.0.0.1.attacker.example:80"),
        ("127.0.0.1@attacker.example", "https://127.0.0.1@attacker.example"),
        ("127.0.0.1:80@attacker.example", "https://127.0.0.1:80@attacker.example"), ("localhost.attacker.example", "https://localhost.attacker.example"),
        ("[::1].attacker.example", "https://[::1].attacker.example"), ("128.0.0.1", "https://128.0.0.1"), ("::2", "https://[::2]"),
        ("my-instance.uc1.ccaiplatform.com", "https://my-instance.uc1.ccaiplatform.com"),
        ("http://platform.example:8080/", "http://platform.example:8080"), ("https://127.0.0.1", "https://127.0.0.1"),
    ])
    func onlyLiteralLoopbackAddressesGetPlainHTTP(_ host: String, _ expected: String) {
        #expect(InitOptions(key: "k", urlHost: host).baseURL == expected)
    }

    @Test func languageResolution() async throws {
        #expect(LanguageService.resolve(explicit: "fr", device: "es-CU", enabled: ["en", "es"]) == "fr")
        #expect(LanguageService.resolve(explicit: nil, device: "es", enabled: ["en", "es"]) == "es")
        #expect(LanguageService.resolve(explicit: nil, device: "es-CU", enabled: ["en", "es"]) == "es")
        #expect(LanguageService.resolve(explicit: nil, device: "de-AT", enabled: ["en", "es"]) == "en")
        #expect(LanguageService.resolve(explicit: nil, device: nil, enabled: ["es"]) == "en")

        let sandbox = try Sandbox()
        let ccai = try makeSDK(sandbox, delegate: SigningDelegate(identifier: "lang"), cache: false, language: "es")
        #expect(ccai.languageService!.languageCode == "es")
        try ccai.languageService!.setLanguageCode("en")
        #expect(ccai.languageService!.languageCode == "en")
    }

    /// A platform that refuses every event stream with 401 does not make the host sign in
    /// a loop: the first refusal is renewed at once, then each attempt backs off (0.5 s
    /// doubling to 30 s, with jitter), on the SDK's clock. In a virtual minute that is
    /// 6 to 12 sign-ins, where there were dozens a second.
    @Test func aPlatformRefusingTheStreamIsNotAskedForTokensInALoop() async throws {
        var router = HTTPRouter()
        router.add("POST", "/auth/end_user", authentication: .none) { _ in
            try .json(AuthResponse(authToken: "token", expiresAt: 4_000_000_000, endUser: EndUser(identifier: "vu-1")))
        }
        router.add("GET", "/events", authentication: .none) { _ in throw HTTPError.unauthenticated("refused") }
        let clock = ManualClock()
        let delegate = PatientDelegate(clock: clock, patience: 20)
        // Requests time out on the real clock, so that the manual one holds only the SDK's waits.
        let ccai = CCAI(http: HTTPClient(clock: clock, transport: RouterTransport(router: router)))
        delegate.signing.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: inProcessHost, delegate: delegate,
                                                 cacheAuthToken: false))
        await listenForAVirtualMinute(ccai, on: clock)
        #expect((6...12).contains(delegate.signing.calls), "\(delegate.signing.calls) sign-ins in a virtual minute")
    }

    /// A stream that told an event, then refuses its token while every later sign-in is
    /// refused, still backs off: what an earlier attempt told does not start the backoff
    /// over at each failed sign-in. In a virtual minute that is a handful of sign-ins, where
    /// a reset backoff makes one every half second.
    @Test func refusedSignInsAfterAnEventStillBackOff() async throws {
        let connections = Tally()
        var router = HTTPRouter()
        router.add("GET", "/events", authentication: .none) { _ in
            guard connections.next() == 1 else { throw HTTPError.unauthenticated("refused") }
            return .eventStream { stream in _ = stream.send(id: "1", event: "ping", data: "{}") }
        }
        let clock = ManualClock()
        let delegate = OnceDelegate()
        let ccai = CCAI(http: HTTPClient(clock: clock, transport: RouterTransport(router: router)))
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: inProcessHost, delegate: delegate,
                                                 cacheAuthToken: false))
        await listenForAVirtualMinute(ccai, on: clock)
        #expect(connections.count >= 2, "the stream was refused after its event")
        #expect((3...14).contains(delegate.calls), "\(delegate.calls) sign-ins in a virtual minute")
    }

    /// Listens to `ccai`'s chat events while `clock` moves from timer to timer for a minute.
    private func listenForAVirtualMinute(_ ccai: CCAI, on clock: ManualClock) async {
        ccai.initializeChat()
        let events = ccai.chatService!.events()
        let listening = Task { for await _ in events {} }
        let start = clock.now()
        while clock.now().timeIntervalSince(start) < 60 {
            await clock.waitForTimers()
            clock.advanceToNextTimer()
        }
        listening.cancel()
    }
}

/// Counts what it is asked to, from any thread.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }

    /// Counts one more; the count with it.
    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

/// Gives a token the first time it is asked, and none after; counts the times it is asked.
private final class OnceDelegate: CCAIDelegate, @unchecked Sendable {
    private let asked = Tally()
    var calls: Int { asked.count }

    func ccaiShouldAuthenticate() async -> String? {
        asked.next() == 1 ? "token" : nil
    }
}

/// Signs in once its gate is open; counts the requests as they come.
private final class GatedDelegate: CCAIDelegate, @unchecked Sendable {
    let signing: SigningDelegate
    let gate = Latch()
    private let lock = NSLock()
    private var count = 0
    var asked: Int { lock.withLock { count } }

    init(identifier: String) { signing = SigningDelegate(identifier: identifier) }

    func ccaiShouldAuthenticate() async -> String? {
        lock.withLock { count += 1 }
        await gate.wait()
        return await signing.ccaiShouldAuthenticate()
    }
}

/// Signs in as `vu-1`; past `patience` sign-ins it first waits an hour on `clock`, so that
/// a host signing in a loop without sleeping still gives a test a timer to wait for.
private final class PatientDelegate: CCAIDelegate, @unchecked Sendable {
    let signing = SigningDelegate(identifier: "vu-1")
    let clock: ManualClock
    let patience: Int

    init(clock: ManualClock, patience: Int) {
        self.clock = clock
        self.patience = patience
    }

    func ccaiShouldAuthenticate() async -> String? {
        if signing.calls >= patience { try? await clock.sleep(for: 3_600) }
        return await signing.ccaiShouldAuthenticate()
    }
}
