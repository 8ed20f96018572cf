import CCAIWire
import Foundation

/// The communication a post-session survey or rating is for.
public struct RateTarget: Equatable, Sendable {
    public var communicationId: Int
    /// `chats` or `calls`.
    public var communicationType: String
}

/// Post-session surveys and CSAT ratings (seed 000's `rateService`). The platform takes
/// them once the session's post-session phase is `ready` (``ChatService/startPostSession()``,
/// then ``ChatService/readyPostSession()``; for a call, ``CallService``'s); a submission
/// completes the phase.
///
/// ```swift
/// let survey = try await ccai.rateService!.getSurvey(communicationId: chat.id, communicationType: "chats")
/// try await ccai.rateService!.submitSurvey(communicationId: chat.id, communicationType: "chats",
///                                          answers: SurveyRequest(answers: [survey.questions[0].id: "5"]))
/// ccai.rateService!.clearRateTarget()
/// ```
public final class RateService: @unchecked Sendable {
    private let api: APIClient
    private let lock = NSLock()
    private var target: RateTarget?

    init(api: APIClient, pump: EventPump) {
        self.api = api
        pump.observe { [weak self] event in
            guard let self, let target = Self.target(of: event) else { return }
            lock.withLock { self.target = target }
        }
    }

    /// The session an event says awaits feedback: a chat or call that ended with a
    /// post-session flow not yet completed. Read from the model the SDK decodes anyway.
    static func target(of event: PlatformEvent) -> RateTarget? {
        let session: (id: Int, type: CommunicationType, required: Bool, transfer: PostSessionTransferStatus?)
        switch event.name {
        case PlatformEventName.chatReceived.rawValue:
            guard let chat = try? event.decoded(as: ChatResponse.self), chat.status == .ended else { return nil }
            session = (chat.id, .chats, chat.postSessionRequired, chat.postSessionTransferStatus)
        case PlatformEventName.callReceived.rawValue:
            guard let call = try? event.decoded(as: CallResponse.self), call.status == .ended else { return nil }
            session = (call.id, .calls, call.postSessionRequired, call.postSessionTransferStatus)
        default:
            return nil
        }
        guard session.required, session.transfer != .completed else { return nil }
        return RateTarget(communicationId: session.id, communicationType: session.type.rawValue)
    }

    /// The session awaiting feedback: the last one that ended with a post-session flow,
    /// until ``clearRateTarget()``.
    public var rateTarget: RateTarget? { lock.withLock { target } }

    /// Forgets the rate target (after the feedback is given, or skipped).
    public func clearRateTarget() {
        lock.withLock { target = nil }
    }

    /// The survey of a session's queue, in the session's language; `not_found` when its
    /// queue has none.
    public func getSurvey(communicationId: Int, communicationType: String) async throws -> Survey {
        try await api.send(try Self.endpoint(communicationType, Endpoints.survey), ["id": communicationId],
                           as: Survey.self)
    }

    /// Submits survey answers (question id to value). Every problem is named
    /// (`invalid_argument`); answers given twice, or before the post-session phase is
    /// ready, are a `conflict`.
    public func submitSurvey(communicationId: Int, communicationType: String, answers: SurveyRequest) async throws {
        _ = try await api.sendRaw(try Self.endpoint(communicationType, Endpoints.submitSurvey),
                                  ["id": communicationId], body: answers)
    }

    /// Submits a CSAT rating, 1 to 5, with optional feedback (out of range:
    /// `invalid_argument`; twice, or before the phase is ready: `conflict`).
    public func rate(communicationId: Int, communicationType: String, request: RatingRequest) async throws {
        if let problem = request.problems.first { throw CCAIError.invalidArgument(problem) }
        _ = try await api.sendRaw(try Self.endpoint(communicationType, Endpoints.rate), ["id": communicationId],
                                  body: request)
    }

    /// The kinds of session this SDK rates: chats and calls. The Lua bindings accept these
    /// and no others.
    public static let ratedTypes: [CommunicationType] = [.chats, .calls]

    /// The endpoint of a communication type of ``ratedTypes``, or `invalid_argument`.
    private static func endpoint(_ communicationType: String, _ endpoints: ConversationEndpoints) throws -> Endpoint {
        if let problem = problem(communicationType) { throw CCAIError.invalidArgument("communicationType: " + problem) }
        return CommunicationType(rawValue: communicationType) == .calls ? endpoints.call : endpoints.chat
    }

    /// What is wrong with a communication type, if it is not one of ``ratedTypes``.
    public static func problem(_ communicationType: String) -> String? {
        let type = CommunicationType(rawValue: communicationType)
        guard !ratedTypes.contains(type) else { return nil }
        return ratedTypes.map { "'\($0)'" }.joined(separator: " or ") + " expected, got '\(communicationType)'"
    }
}
