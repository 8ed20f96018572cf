import CCAIWire
import Foundation
import Timekeeping

/// The post-session phase of an ended chat (docs/post-session.md): its settings, the
/// steps `start` (-> `in_progress`) and `ready` (-> `ready`), the survey in the chat's
/// language and its answers, the CSAT rating, and the operator's report. A submission
/// completes the phase; every change is a `chat_received`.
///
/// ```swift
/// let ready = try await postSessions.advance(chat, owner: owner, from: .inProgress, to: .ready)
/// try await postSessions.rate(RatingRequest(rating: 5), chat: ready, owner: owner)
/// ```
struct PostSessions: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: ChatLifecycle
    let publisher: EventPublisher
    let clock: any Clock

    /// The post-session settings the chat was started with (its queue's, or the company's).
    func settings(of chat: ChatResponse) async throws -> PostSessionSettings {
        try await store.postSessionSettings(chatID: chat.id)
    }

    /// Moves the chat's post-session phase on, or says why it cannot move.
    func advance(_ chat: ChatResponse, owner: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus) async throws
        -> ChatResponse
    {
        guard !chat.isInProgress else {
            throw HTTPError.conflict("chat \(chat.id) is still in progress; its post-session phase starts once it has ended")
        }
        guard chat.postSessionRequired else {
            throw HTTPError.conflict("chat \(chat.id) has no post-session flow (post_session_required is false)")
        }
        guard let moved = try await lifecycle.advancePostSession(chat.id, endUserID: owner, from: from, to: to) else {
            let step = to == .inProgress ? "start_post_session" : "ready_post_session"
            throw HTTPError.conflict("chat \(chat.id)'s post-session phase is \(chat.postSessionTransferStatus?.rawValue ?? "not started"); "
                                     + "\(step) needs it " + (from.map { "to be \($0.rawValue) (call start_post_session first)" } ?? "not started"))
        }
        return moved
    }

    /// The virtual agent that talks on a ready chat, when its flow is one.
    func virtualAgent(of chat: ChatResponse) async throws -> String? {
        guard let flow = try await lifecycle.postSessionFlow(of: chat), flow.type == .virtualAgent else { return nil }
        return flow.virtualAgentId
    }

    /// The chat's survey in its language, or 404 when its queue has none.
    func survey(of chat: ChatResponse) async throws -> Survey {
        guard let id = try await store.postSessionSettings(chatID: chat.id).surveyId,
            let survey = configuration.survey(id: id, language: chat.lang)
        else { throw HTTPError.notFound("chat \(chat.id) has no survey (its queue's post-session settings name none)") }
        return survey
    }

    /// Stores the answers to the chat's survey, trimmed as they are checked, once, and
    /// completes the phase.
    func submit(_ received: [Int: String], toSurveyOf chat: ChatResponse, owner: Int) async throws {
        let answers = Survey.trimmed(received)
        let survey = try await survey(of: chat)
        let problems = survey.problems(answers)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        let submission = try await store.submitSurvey(chatID: chat.id, endUserID: owner, surveyID: survey.id ?? 0, answers: answers,
                                                      now: clock.now())
        try await completed(submission, chat, owner: owner, what: "the survey")
    }

    /// Stores the end user's rating of the chat, once, and completes the phase.
    func rate(_ rating: RatingRequest, chat: ChatResponse, owner: Int) async throws {
        guard rating.problems.isEmpty else { throw HTTPError.badRequest(rating.problems.joined(separator: "; ")) }
        let submission = try await store.rate(chatID: chat.id, endUserID: owner, rating: rating.rating ?? 0,
                                              feedback: rating.feedback, now: clock.now())
        try await completed(submission, chat, owner: owner, what: "a rating")
    }

    /// A page of the ratings and survey answers, by chat: at most `limit` of each, of the
    /// chats after `after`.
    func report(after: Int, limit: Int) async throws -> RatingsReport {
        try await store.ratingsReport(after: after, limit: limit)
    }

    /// Publishes the completed chat, or says why the submission was refused.
    private func completed(_ submission: SandboxStore.Submission, _ chat: ChatResponse, owner: Int, what: String) async throws {
        switch submission {
        case .completed(let done):
            try await publisher.chat(done, endUserID: owner)
        case .alreadyGiven:
            throw HTTPError.conflict("chat \(chat.id) already has \(what)")
        case .notReady(let status):
            throw HTTPError.conflict("chat \(chat.id)'s post-session phase is \(status?.rawValue ?? "not started"); "
                                     + "\(what) is taken once it is ready (start_post_session, then ready_post_session)")
        }
    }
}
