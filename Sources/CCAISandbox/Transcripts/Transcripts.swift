import CCAIWire
import Foundation

/// The transcripts of chats (`GET /chats/{id}/transcript`, ``ChatTranscript``): rendered
/// by the sandbox's ``TranscriptRenderer``, off the threads that serve requests, and kept
/// in its ``TranscriptCache`` until the chat changes, so that asking again renders nothing.
///
/// ```swift
/// let pdf = try await transcripts.pdf(of: chat, for: session)
/// ```
struct Transcripts: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    let conversation: Conversation
    let renderer: TranscriptRenderer
    let cache: TranscriptCache

    /// The PDF of the session's own chat: the one kept if the chat has not changed since,
    /// else a new rendering (or the 429 or 503 that refuses it).
    func pdf(of chat: ChatResponse, for caller: Caller) async throws -> Data {
        let endUserName = caller.endUser.name.map { ChatTranscript.cut($0, toBytes: ChatTranscript.maximumNameBytes) }
        let version = TranscriptVersion(chat: chat, endUserName: endUserName,
                                        messages: try await store.messagesVersion(chatID: chat.id))
        if let pdf = cache.pdf(chatID: chat.id, version: version) { return pdf }
        let (configuration, conversation, cache) = (self.configuration, self.conversation, self.cache)
        return try await renderer.render(chatID: chat.id, version: version, endUserID: try caller.endUserID()) {
            let menu = configuration.allMenus.first { $0.id == chat.menuId }
            let transcript = ChatTranscript(
                chat: chat, messages: try await conversation.agentView(of: chat, first: ChatTranscript.maximumMessages),
                messageCount: version.messages.count, companyName: configuration.company.name,
                queueName: menu?.name.text(chat.lang, fallback: "en") ?? "queue \(chat.menuId)",
                timeZone: TimeZone(identifier: configuration.company.timeZone) ?? .gmt, endUserName: endUserName)
            return {
                let pdf: Data
                do {
                    pdf = try transcript.pdf()
                } catch {
                    throw HTTPError.internalError("the transcript of chat \(chat.id) could not be rendered: \(error)")
                }
                cache.insert(pdf, chatID: chat.id, version: version)
                return pdf
            }
        }
    }
}
