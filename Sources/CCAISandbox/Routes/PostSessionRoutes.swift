import CCAIWire
import Foundation

/// The post-session phase of an ended chat (docs/post-session.md): its settings, the
/// lifecycle `start` (-> `in_progress`) and `ready` (-> `ready`), the survey and its
/// answers, the CSAT rating, and the operator's `GET /admin/ratings`. A submission
/// completes the phase; every change is a `chat_received`.
struct PostSessionRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.postSessionSettings, postSessionSettings),
            (Endpoints.startPostSession, startPostSession),
            (Endpoints.readyPostSession, readyPostSession),
            (Endpoints.survey, survey),
            (Endpoints.submitSurvey, submitSurvey),
            (Endpoints.rate, rate),
        ], sessions: sandbox)
        router.on(Endpoints.ratings, ratings)
    }

    /// The operator's report (admin token, not an end user's session).
    private func ratings(_: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await sandbox.store.ratingsReport())
    }

    private func postSessionSettings(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        return try .json(try await sandbox.store.postSessionSettings(chatID: chat.id))
    }

    private func startPostSession(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await advance(try await sandbox.ownChat(request, session), owner: try session.endUserID(), from: nil,
                                    to: .inProgress))
    }

    private func readyPostSession(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let (chat, owner) = (try await sandbox.ownChat(request, session), try session.endUserID())
        let ready = try await advance(chat, owner: owner, from: .inProgress, to: .ready)
        if let flow = try await sandbox.lifecycle.postSessionFlow(of: ready), flow.type == .virtualAgent, let id = flow.virtualAgentId {
            await sandbox.agentDesk.startPostSession(ready, virtualAgentID: id, endUserID: owner, sandbox: sandbox)
        }
        return try .json(ready)
    }

    private func survey(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        return try .json(try await survey(of: chat))
    }

    private func submitSurvey(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let survey = try await survey(of: chat)
        let answers = try request.decode(SurveyRequest.self).answers
        let problems = survey.problems(answers)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        let submission = try await sandbox.store.submitSurvey(chatID: chat.id, endUserID: try session.endUserID(),
                                                              surveyID: survey.id ?? 0, answers: answers, now: sandbox.clock.now())
        return try await completed(submission, chat, owner: try session.endUserID(), what: "the survey")
    }

    private func rate(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let rating = try request.decode(RatingRequest.self)
        guard rating.problems.isEmpty else { throw HTTPError.badRequest(rating.problems.joined(separator: "; ")) }
        let submission = try await sandbox.store.rate(chatID: chat.id, endUserID: try session.endUserID(),
                                                      rating: rating.rating ?? 0, feedback: rating.feedback,
                                                      now: sandbox.clock.now())
        return try await completed(submission, chat, owner: try session.endUserID(), what: "a rating")
    }

    /// Moves the chat's post-session phase on, or says why it cannot move.
    private func advance(_ chat: ChatResponse, owner: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus)
        async throws -> ChatResponse
    {
        guard !chat.isInProgress else {
            throw HTTPError.conflict("chat \(chat.id) is still in progress; its post-session phase starts once it has ended")
        }
        guard chat.postSessionRequired else {
            throw HTTPError.conflict("chat \(chat.id) has no post-session flow (post_session_required is false)")
        }
        guard let moved = try await sandbox.lifecycle.advancePostSession(chat.id, endUserID: owner, from: from, to: to) else {
            let step = to == .inProgress ? "start_post_session" : "ready_post_session"
            throw HTTPError.conflict("chat \(chat.id)'s post-session phase is \(chat.postSessionTransferStatus?.rawValue ?? "not started"); "
                                     + "\(step) needs it " + (from.map { "to be \($0.rawValue) (call start_post_session first)" } ?? "not started"))
        }
        return moved
    }

    /// The chat's survey in its language, or 404 when its queue has none.
    private func survey(of chat: ChatResponse) async throws -> Survey {
        guard let id = try await sandbox.store.postSessionSettings(chatID: chat.id).surveyId,
            let survey = sandbox.configuration.survey(id: id, language: chat.lang)
        else { throw HTTPError.notFound("chat \(chat.id) has no survey (its queue's post-session settings name none)") }
        return survey
    }

    /// The answer to a submission: 204 once stored (the chat's `chat_received` says
    /// `completed`), else the conflict.
    private func completed(_ submission: SandboxStore.Submission, _ chat: ChatResponse, owner: Int, what: String) async throws
        -> HTTPResponse
    {
        switch submission {
        case .completed(let done):
            try await sandbox.publisher.chat(done, endUserID: owner)
            return .noContent
        case .alreadyGiven:
            throw HTTPError.conflict("chat \(chat.id) already has \(what)")
        case .notReady(let status):
            throw HTTPError.conflict("chat \(chat.id)'s post-session phase is \(status?.rawValue ?? "not started"); "
                                     + "\(what) is taken once it is ready (start_post_session, then ready_post_session)")
        }
    }
}
