import CCAIWire
import Foundation

/// `GET /chats/{id}/transcript`: the chat's transcript as a PDF (``Transcripts``), at any
/// time of the chat's life.
struct TranscriptRoutes: Sendable {
    let callers: CallerResolver
    let transcripts: Transcripts

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.transcript, transcript),
        ], callers: callers)
    }

    private func transcript(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        return HTTPResponse(status: 200, headers: [
            "Content-Type": "application/pdf", "X-Content-Type-Options": "nosniff",
            "Content-Disposition": ContentDisposition.attachment(named: "chat-\(chat.id)-transcript.pdf"),
        ], body: try await transcripts.pdf(of: chat, for: caller))
    }
}
