import CCAIKit
@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// `getMessages` reads a long chat whole, page after page of `GET /chats/{id}/messages`.
@Suite struct MessagePagingTests {
    @Test func getMessagesFollowsEveryPage() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "long-chatter")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        let chat = try await service.start(request: ChatRequest(menuId: 8))
        let owner = try #require(try await sandbox.store.chatOwner(id: chat.id))
        let count = 2 * Paging.messages.maximumLimit + 1
        for index in 1...count {
            try await sandbox.conversation.post(.init(sender: ChatMessageSender(type: "end_user"), type: "text", text: "m\(index)"),
                                                in: chat.id, endUserID: owner)
        }
        let messages = try await service.getMessages()
        let texts = messages.compactMap(\.text).filter { $0.hasPrefix("m") }
        #expect(texts.count == count && texts.first == "m1" && texts.last == "m\(count)", "\(texts.count) of \(count)")
        #expect(Set(messages.map(\.id)).count == messages.count, "no message twice")
        _ = delegate
    }
}
