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
            let type: CommunicationType
            switch event.name {
            case PlatformEventName.chatReceived.rawValue: type = .chats
            case PlatformEventName.callReceived.rawValue: type = .calls
            default: return
            }
            let data = event.data
            guard data["status"] == "ended", data["post_session_required"] == true,
                data["post_session_transfer_status"] != "completed", case .integer(let raw)? = data["id"],
                let id = Int(exactly: raw)
            else { return }
            self?.lock.withLock { self?.target = RateTarget(communicationId: id, communicationType: type.rawValue) }
        }
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
