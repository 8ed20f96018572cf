import CCAIWire
import Foundation

/// `GET /chats/{id}/transcript`: the chat's transcript as a PDF (``ChatTranscript``), at
/// any time of the chat's life.
struct TranscriptRoutes: Sendable {
    let sessions: SessionResolver
    let conversation: Conversation
    let configuration: SandboxConfiguration

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.transcript, transcript),
        ], sessions: sessions)
    }

    private func transcript(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sessions.ownChat(request, session)
        let menu = configuration.allMenus.first { $0.id == chat.menuId }
        let transcript = ChatTranscript(
            chat: chat, messages: try await conversation.messages(of: chat.id), companyName: configuration.company.name,
            queueName: menu?.name.text(chat.lang, fallback: "en") ?? "queue \(chat.menuId)",
            timeZone: TimeZone(identifier: configuration.company.timeZone) ?? .gmt, endUserName: session.endUser.name)
        let pdf: Data
        do {
            pdf = try transcript.pdf()
        } catch {
            throw HTTPError.internalError("the transcript of chat \(chat.id) could not be rendered: \(error)")
        }
        return HTTPResponse(status: 200, headers: [
            "Content-Type": "application/pdf", "X-Content-Type-Options": "nosniff",
            "Content-Disposition": ContentDisposition.attachment(named: "chat-\(chat.id)-transcript.pdf"),
        ], body: pdf)
    }
}
