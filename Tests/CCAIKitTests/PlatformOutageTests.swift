import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The end-to-end tests of the SDK over loopback HTTP (libcurl and the sandbox's server):
/// what needs a real socket, a platform that stops under the SDK (its event stream
/// dropped), is unreachable (a refused connection) or comes back on the same port. Every
/// other test of the SDK reaches its sandbox in the same process (`makeSDK(_:delegate:)`).
@Suite struct PlatformOutageTests {
    /// The chat's events come through the platform stream; when the server stops, the
    /// dropped connection is what the provider's states report.
    @Test(.timeLimit(.minutes(1))) func chatEventsArriveThroughThePlatformStream() async throws {
        let server = try Sandbox().serve()
        let delegate = SigningDelegate(identifier: "listener")
        let ccai = try makeLoopbackSDK(port: server.port, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        var states = service.stateChanged.makeAsyncIterator()
        #expect(await states.next() == .disconnected, "the state as it is first")
        #expect(await states.next() == .connecting, "subscribing starts the provider")
        #expect(await states.next() == .connected)
        // Seed 000: stateChanged is a CurrentValueSubject: a late subscriber gets the state now.
        var late = service.stateChanged.makeAsyncIterator()
        #expect(await late.next() == .connected)
        let seen = try await statusesOfAChatEndedOnceActive(service)
        #expect(seen == [.queued, .assigned, .active, .ended], "every change of the chat, in order: \(seen)")
        #expect(service.currentChat?.status == .ended)
        await server.stop()
        #expect(await states.next() == .disconnected, "the provider state, not the chat's")
        #expect(await states.next() == .connecting)
    }

    /// A port nothing listens on refuses the connection: libcurl's failure is `unavailable`.
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
        } catch let error as NetworkError {
            guard case .unavailable(let operation, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.code == .unavailable && error.retryable && operation == "GET /company", "seed 000's NetworkError")
        }
    }

    /// A chat with the platform stopped under it, on an SDK whose waits a manual clock drives.
    private func chatOffline(_ identifier: String) async throws
        -> (sandbox: Sandbox, port: UInt16, clock: ManualClock, service: ChatService, delegate: SigningDelegate)
    {
        let sandbox = try Sandbox()
        let server = try sandbox.serve(port: try restartablePort())   // the tests listen on it again
        let clock = ManualClock()
        let delegate = SigningDelegate(identifier: identifier)
        let ccai = try makeLoopbackSDK(port: server.port, delegate: delegate, cache: false, clock: clock)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 8))
        await server.stop()
        return (sandbox, server.port, clock, service, delegate)
    }

    /// A download that fails while the platform is unreachable is tried again 1, then 2
    /// seconds later (RetryPolicy.downloadAttempts), and the file is saved once it comes.
    @Test(.timeLimit(.minutes(1))) func transcriptDownloadsAreTriedAgainOnTheSDKsClock() async throws {
        let (sandbox, port, clock, service, delegate) = try await chatOffline("transcript-retry")
        let saved = Saved()
        let downloading = Task { try await service.downloadChatTranscript { saved.keep($0) } }
        await clock.waitForTimers { $0.contains(1) }   // the first attempt failed
        clock.advance(by: 1)
        await clock.waitForTimers { $0.contains(2) }   // the second too
        let restarted = try sandbox.serve(port: port)
        clock.advance(by: 2)
        try await downloading.value
        #expect(saved.data.starts(with: Data("%PDF".utf8)), "the third attempt brought the PDF")
        withExtendedLifetime(delegate) {}
        await restarted.stop()
    }

    /// A hostile platform's "PDF" is not saved: a transcript must start with `%PDF-`, and
    /// one that does not is an error at once (not retried), with nothing handed to `save`.
    @Test(.timeLimit(.minutes(1))) func aTranscriptThatIsNotAPDFIsNotSaved() async throws {
        let (_, port, clock, service, delegate) = try await chatOffline("transcript-not-a-pdf")
        var router = HTTPRouter()
        router.add("GET", "/chats/:id/transcript", authentication: .none) { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/pdf"], body: Data("#!/bin/sh\nrm -rf ~\n".utf8))
        }
        let hostile = try HTTPServer(router: router, port: port)
        let saved = Saved()
        do {
            try await service.downloadChatTranscript { saved.keep($0) }
            Issue.record("expected an error")
        } catch let error as CCAIError {
            #expect(error.code == .internal && error.message.contains("not a PDF"), "\(error)")
        }
        #expect(saved.data.isEmpty && clock.pendingTimers == 0, "nothing saved, nothing retried")
        await #expect(throws: CCAIError.self) { try await service.downloadChatTranscriptData() }
        withExtendedLifetime(delegate) {}
        await hostile.stop()
    }

    @Test(.timeLimit(.minutes(1))) func aTranscriptDownloadGivesUpAfterItsAttempts() async throws {
        let (_, _, clock, service, delegate) = try await chatOffline("transcript-gives-up")
        let saved = Saved()
        let downloading = Task { try await service.downloadChatTranscript { saved.keep($0) } }
        await clock.waitForTimers { $0.contains(1) }
        clock.advance(by: 1)
        await clock.waitForTimers { $0.contains(2) }
        clock.advance(by: 2)
        await #expect(throws: NetworkError.self, "the platform stays unreachable") { try await downloading.value }
        #expect(saved.data.isEmpty && clock.pendingTimers == 0, "three attempts, then the error; nothing saved")
        withExtendedLifetime(delegate) {}
    }
}

/// Bytes a save closure hands to the test.
private final class Saved: @unchecked Sendable {
    private let lock = NSLock()
    private var kept = Data()
    func keep(_ data: Data) { lock.withLock { kept = data } }
    var data: Data { lock.withLock { kept } }
}
