import CCAIWire
import Foundation

/// The post-session phase of an ended chat (docs/post-session.md): its settings, the
/// lifecycle `start` (-> `in_progress`) and `ready` (-> `ready`, where a virtual agent's
/// flow starts its agent), the survey and its answers, the CSAT rating, and the operator's
/// `GET /admin/ratings`. The rules are ``PostSessions``'.
struct PostSessionRoutes: Sendable {
    let sessions: SessionResolver
    let postSessions: PostSessions
    let desk: AgentDesk

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.postSessionSettings, postSessionSettings),
            (Endpoints.startPostSession, startPostSession),
            (Endpoints.readyPostSession, readyPostSession),
            (Endpoints.survey, survey),
            (Endpoints.submitSurvey, submitSurvey),
            (Endpoints.rate, rate),
        ], sessions: sessions)
        router.on(Endpoints.ratings, ratings)
    }

    /// The operator's report (admin token, not an end user's session).
    private func ratings(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.ratings)
        return try .json(try await postSessions.report(after: page.after, limit: page.limit))
    }

    private func postSessionSettings(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await postSessions.settings(of: try await sessions.ownChat(request, session)))
    }

    private func startPostSession(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sessions.ownChat(request, session)
        return try .json(try await postSessions.advance(chat, owner: try session.endUserID(), from: nil, to: .inProgress))
    }

    private func readyPostSession(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let (chat, owner) = (try await sessions.ownChat(request, session), try session.endUserID())
        let ready = try await postSessions.advance(chat, owner: owner, from: .inProgress, to: .ready)
        if let id = try await postSessions.virtualAgent(of: ready) {
            await desk.startPostSession(ready, virtualAgentID: id, endUserID: owner)
        }
        return try .json(ready)
    }

    private func survey(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await postSessions.survey(of: try await sessions.ownChat(request, session)))
    }

    private func submitSurvey(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sessions.ownChat(request, session)
        try await postSessions.submit(try request.decode(SurveyRequest.self).answers, toSurveyOf: chat, owner: try session.endUserID())
        return .noContent
    }

    private func rate(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sessions.ownChat(request, session)
        try await postSessions.rate(try request.decode(RatingRequest.self), chat: chat, owner: try session.endUserID())
        return .noContent
    }
}
