import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// The SDK's screen share service against the sandbox.
@Suite struct ScreenShareServiceTests {
    @Test(.timeLimit(.minutes(1))) func aShareTheEndUserStartsIsJoinedAcceptedAndEnded() async throws {
        let sandbox = try await openSandbox()
        let delegate = SigningDelegate(identifier: "sharer")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        #expect(ccai.screenShareService == nil, "nil until initializeScreenShare")
        #expect(throws: CCAIError.self) { try ccai.initializeScreenShare(options: ScreenShareOptions(key: "")) }
        try ccai.initializeScreenShare(options: ScreenShareOptions(key: "dev-key"))
        let (chat, share) = (try #require(ccai.chatService), try #require(ccai.screenShareService))
        #expect(share.state == .none)
        let started = try await chat.start(request: ChatRequest(menuId: 1))
        #expect(started.isSupportingScreenShare, "chats are screen-shareable once screen share is initialized")
        let states = share.states()
        let requests = share.requests()
        let session = try await share.create(request: ScreenShareRequest(communicationId: started.id, communicationType: .chat,
                                                                         initiatedFrom: .endUser))
        #expect(session.state == .pending && share.currentSession?.id == session.id)
        try await chat.sendMessage(.screenShare(event: .screenShareCodeGenerated, response: session))
        var seen: [ScreenShareServiceState] = []
        for await state in states {
            seen.append(state)
            if state == .authorizing { break }
        }
        #expect(Set(seen).isSubset(of: [.pending, .authorizing]), "pending may come before create answers: \(seen)")
        var requestIterator = requests.makeAsyncIterator()
        #expect(await requestIterator.next() == .session)
        #expect(try await share.activate(accepted: true).state == .active)
        #expect(try await share.end().state == .ended)
        await #expect(throws: CCAIError.self) { try await share.end() }
        share.clear()
        #expect(share.state == .none && share.currentSession == nil)
        await #expect(throws: ScreenShareError.noSession, "seed 002's ScreenShareError") { try await share.activate() }
        #expect(ScreenShareError.serviceNotAvailable.code == .notInitialized)
        try await chat.endChat()
        #expect(delegate.calls >= 1)
    }
}
