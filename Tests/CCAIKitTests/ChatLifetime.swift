import CCAIKit
import CCAIWire
import Testing

/// Starts a chat on the built-in company's queue 8, ends it once it is active, and returns
/// the statuses `chatReceived` told, in order (each checked to be that chat's), up to
/// `ended`.
func statusesOfAChatEndedOnceActive(_ service: ChatService) async throws -> [ChatStatus] {
    let chats = service.chatReceived
    let started = try await service.start(request: ChatRequest(menuId: 8))
    var seen: [ChatStatus] = []
    for await chat in chats {
        let chat = try #require(chat)
        #expect(chat.id == started.id)
        seen.append(chat.status)
        if chat.status == .active { try await service.endChat() }
        if chat.status == .ended { break }
    }
    return seen
}
