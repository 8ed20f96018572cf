import CCAIWire
import Foundation
import Timekeeping

/// The post-session phase of an ended chat or call (docs/post-session.md): its settings,
/// the steps `start` (-> `in_progress`) and `ready` (-> `ready`), the survey in the
/// session's language and its answers, the CSAT rating, and the operator's report. A
/// submission completes the phase; every change is a `chat_received` (a `call_received`
/// for a call). A call has a flow when someone talked on it (it connected, and it is not
/// a voicemail); its queue's settings are the ones in force when it ended.
///
/// ```swift
/// let ready = try await postSessions.advance(.chat(chat), owner: owner, from: .inProgress, to: .ready)
/// try await postSessions.rate(RatingRequest(rating: 5), for: ready, owner: owner)
/// ```
struct PostSessions: Sendable {
    /// An ended session with a post-session phase.
    enum Subject: Sendable {
        case chat(ChatResponse)
        case call(CallResponse)

        var id: Int {
            switch self {
            case .chat(let chat): chat.id
            case .call(let call): call.id
            }
        }

        var communicationType: CommunicationType {
            switch self {
            case .chat: .chats
            case .call: .calls
            }
        }

        /// "chat 3", "call 4", as messages name it.
        var name: String { "\(communicationType == .chats ? "chat" : "call") \(id)" }

        var isInProgress: Bool {
            switch self {
            case .chat(let chat): chat.isInProgress
            case .call(let call): call.isInProgress || call.status == .scheduled
            }
        }

        var postSessionRequired: Bool {
            switch self {
            case .chat(let chat): chat.postSessionRequired
            case .call(let call): call.postSessionRequired
            }
        }

        var postSessionTransferStatus: PostSessionTransferStatus? {
            switch self {
            case .chat(let chat): chat.postSessionTransferStatus
            case .call(let call): call.postSessionTransferStatus
            }
        }
    }

    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: ChatLifecycle
    let callLifecycle: CallLifecycle
    let publisher: EventPublisher
    /// Rewrites a session's metadata file once its feedback is in.
    let exports: SessionMetadataExports
    let clock: any TimeSource

    /// The post-session settings the session has (a chat's from its start, a call's from
    /// its end).
    func settings(of subject: Subject) async throws -> PostSessionSettings {
        try await store.postSessionSettings(subject.communicationType, id: subject.id)
    }

    /// Moves the session's post-session phase on, or says why it cannot move.
    func advance(_ subject: Subject, owner: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus) async throws
        -> Subject
    {
        guard !subject.isInProgress else {
            throw HTTPError.conflict("\(subject.name) is still in progress; its post-session phase starts once it has ended")
        }
        guard subject.postSessionRequired else {
            throw HTTPError.conflict("\(subject.name) has no post-session flow (post_session_required is false)")
        }
        let moved: Subject?
        switch subject {
        case .chat(let chat):
            moved = try await lifecycle.advancePostSession(chat.id, endUserID: owner, from: from, to: to).map(Subject.chat)
        case .call(let call):
            moved = try await callLifecycle.advancePostSession(call.id, endUserID: owner, from: from, to: to).map(Subject.call)
        }
        guard let moved else {
            let step = to == .inProgress ? "start_post_session" : "ready_post_session"
            throw HTTPError.conflict("\(subject.name)'s post-session phase is \(subject.postSessionTransferStatus?.rawValue ?? "not started"); "
                                     + "\(step) needs it " + (from.map { "to be \($0.rawValue) (call start_post_session first)" } ?? "not started"))
        }
        return moved
    }

    /// The post-session flow the hierarchy chooses for the session, if any.
    func flow(of subject: Subject) async throws -> PostSessionFlow? {
        try await settings(of: subject).flow(communicationId: subject.id, communicationType: subject.communicationType)
    }

    /// The virtual agent that talks on a ready session, when its flow is one.
    func virtualAgent(of subject: Subject) async throws -> String? {
        guard let flow = try await flow(of: subject), flow.type == .virtualAgent else { return nil }
        return flow.virtualAgentId
    }

    /// The session's survey in its language (a chat's; a call's in the company's first),
    /// or 404 when its queue has none.
    func survey(of subject: Subject) async throws -> Survey {
        let language: String
        switch subject {
        case .chat(let chat): language = chat.lang
        case .call: language = configuration.company.languages.first ?? "en"
        }
        guard let id = try await settings(of: subject).surveyId, let survey = configuration.survey(id: id, language: language) else {
            throw HTTPError.notFound("\(subject.name) has no survey (its queue's post-session settings name none)")
        }
        return survey
    }

    /// Stores the answers to the session's survey, trimmed as they are checked, once, and
    /// completes the phase.
    func submit(_ received: [Int: String], toSurveyOf subject: Subject, owner: Int) async throws {
        let answers = Survey.trimmed(received)
        let survey = try await survey(of: subject)
        let problems = survey.problems(answers)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        let submission = try await store.submitSurvey(subject.communicationType, id: subject.id, endUserID: owner, surveyID: survey.id ?? 0,
                                                      answers: answers, now: clock.now())
        try await completed(submission, subject, owner: owner, what: "the survey")
    }

    /// Stores the end user's rating of the session, once, and completes the phase.
    func rate(_ rating: RatingRequest, for subject: Subject, owner: Int) async throws {
        guard rating.problems.isEmpty else { throw HTTPError.badRequest(rating.problems.joined(separator: "; ")) }
        let submission = try await store.rate(subject.communicationType, id: subject.id, endUserID: owner, rating: rating.rating ?? 0,
                                              feedback: rating.feedback, now: clock.now())
        try await completed(submission, subject, owner: owner, what: "a rating")
    }

    /// A page of the ratings and survey answers of one communication type, by session: at
    /// most `limit` of each, of the sessions after `after`.
    func report(_ type: CommunicationType, after: Int, limit: Int) async throws -> RatingsReport {
        try await store.ratingsReport(type, after: after, limit: limit)
    }

    /// The ratings of the `limit` latest sessions of `type` rated, oldest first (the console's).
    func latestRatings(_ type: CommunicationType, limit: Int) async throws -> [RatingsReport.Rating] {
        try await store.latestRatings(type, limit: limit)
    }

    /// The survey answers of the `limit` latest sessions of `type` that answered, oldest first (the console's).
    func latestSurveyAnswers(_ type: CommunicationType, limit: Int) async throws -> [RatingsReport.SurveyAnswers] {
        try await store.latestSurveyAnswers(type, limit: limit)
    }

    /// Publishes the completed session, or says why the submission was refused.
    private func completed(_ submission: SandboxStore.Submission, _ subject: Subject, owner: Int, what: String) async throws {
        switch submission {
        case .completed:
            await exports.sessionUpdated(subject.communicationType == .chats ? .chat : .call, id: subject.id)
            switch subject {
            case .chat(let chat):
                if let done = try await store.chat(id: chat.id, endUserID: owner) { try await publisher.chat(done, endUserID: owner) }
            case .call(let call):
                if let done = try await store.call(id: call.id) { try await publisher.call(done, endUserID: owner) }
            }
        case .alreadyGiven:
            throw HTTPError.conflict("\(subject.name) already has \(what)")
        case .notReady where !subject.postSessionRequired:
            throw HTTPError.conflict("\(subject.name) has no post-session flow (post_session_required is false): it takes no feedback")
        case .notReady(.completed?):
            throw HTTPError.conflict("\(subject.name)'s post-session phase is completed: its feedback was given")
        case .notReady(let status):
            throw HTTPError.conflict("\(subject.name)'s post-session phase is \(status?.rawValue ?? "not started"); "
                                     + "\(what) is taken once it is ready (start_post_session, then ready_post_session)")
        }
    }
}
