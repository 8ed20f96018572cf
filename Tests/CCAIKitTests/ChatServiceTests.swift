import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

@Suite struct ChatServiceTests {
    @Test func startsResumesChecksAndEndsChats() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "chatter")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
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
        let otherDelegate = SigningDelegate(identifier: "chatter")
        let other = try makeSDK(sandbox, delegate: otherDelegate, cache: false)
        other.initializeChat()
        let found = try #require(try await other.chatService!.getLastChatInProgress())
        try await other.chatService!.resumeChat(found)
        #expect(other.chatService!.currentChat?.id == chat.id, "a second device of the same user resumes it")
        try await other.chatService!.endChat()
        #expect(try await service.checkStatus().status == .ended)
        await #expect(throws: ChatProviderError.chatEnded(chatId: chat.id), "seed 000's ChatProviderError") {
            try await service.resumeChat(chat)
        }
        #expect(ChatProviderError.chatEnded(chatId: chat.id).code == .conflict)
    }

    @Test func previewsOlderThanTheLastAreSkipped() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "previewer")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 8))
        let now = Date()
        #expect(try await service.sendMessagePreview("hel", at: now))
        #expect(try await service.sendMessagePreview("he", at: now.addingTimeInterval(-1)) == false)
        #expect(try await service.sendMessagePreview("hello", at: now.addingTimeInterval(1)))
        try await service.endChat()
    }

    @Test(.timeLimit(.minutes(1))) func aProviderThatCannotAuthenticateSaysSo() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "nobody", secret: "wrong")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        var states = try #require(ccai.chatService).stateChanged.makeAsyncIterator()
        #expect(await states.next() == .disconnected)
        #expect(await states.next() == .connecting)
        guard case .error(let message)? = await states.next() else { Issue.record("an error state"); return }
        #expect(message == "the delegate provided no auth token", "the sign-in failure, as the SDK reports it: \(message)")
    }

}
