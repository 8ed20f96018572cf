import CCAIWire
import Foundation

/// `GET /chats/{id}/transcript`: the chat's transcript as a PDF (``ChatTranscript``), at
/// any time of the chat's life.
struct TranscriptRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.transcript, transcript),
        ], sessions: sandbox)
    }

    private func transcript(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let menu = sandbox.configuration.allMenus.first { $0.id == chat.menuId }
        let transcript = ChatTranscript(
            chat: chat, messages: try await sandbox.store.messages(chatID: chat.id), companyName: sandbox.configuration.company.name,
            queueName: menu?.name.text(chat.lang, fallback: "en") ?? "queue \(chat.menuId)",
            timeZone: TimeZone(identifier: sandbox.configuration.company.timeZone) ?? .gmt, endUserName: session.endUser.name)
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
