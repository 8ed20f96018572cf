import CCAIWire
import Foundation

/// The post-session phase of an ended chat or call (docs/post-session.md), the same six
/// routes under `/chats/{id}` and `/calls/{id}`: its settings, the lifecycle `start` (->
/// `in_progress`) and `ready` (-> `ready`, where a virtual agent's flow starts its
/// agent), the survey and its answers, the CSAT rating; and the operator's `GET
/// /admin/ratings`. The rules are ``PostSessions``'.
struct PostSessionRoutes: Sendable {
    let callers: CallerResolver
    let calls: Calls
    let postSessions: PostSessions
    let desk: AgentDesk

    func register(in router: inout HTTPRouter) {
        for (kind, type) in [(CommunicationRouter.CommunicationType.chat, CommunicationType.chats), (.call, .calls)] {
            router.on([
                (Endpoints.postSessionSettings[kind], settings(type)),
                (Endpoints.startPostSession[kind], start(type)),
                (Endpoints.readyPostSession[kind], ready(type)),
                (Endpoints.survey[kind], survey(type)),
                (Endpoints.submitSurvey[kind], submitSurvey(type)),
                (Endpoints.rate[kind], rate(type)),
            ], callers: callers)
        }
        router.on(Endpoints.ratings, ratings)
    }

    /// The operator's report (admin token, not an end user's session), of chats unless
    /// `communication_type=calls`.
    private func ratings(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.ratings)
        let type = CommunicationType(rawValue: request.query["communication_type"] ?? CommunicationType.chats.rawValue)
        guard CommunicationType.allCases.contains(type) else {
            throw HTTPError.badRequest("communication_type must be 'chats' or 'calls', got '\(TerminalText.escaped(String(type.rawValue.prefix(40))))'")
        }
        return try .json(try await postSessions.report(type, after: page.after, limit: page.limit))
    }

    private func settings(_ type: CommunicationType) -> CallerHandler {
        { request, caller in try .json(try await postSessions.settings(of: try await own(type, request, caller))) }
    }

    private func start(_ type: CommunicationType) -> CallerHandler {
        { request, caller in
            let subject = try await own(type, request, caller)
            return try json(try await postSessions.advance(subject, owner: try caller.endUserID(), from: nil, to: .inProgress))
        }
    }

    private func ready(_ type: CommunicationType) -> CallerHandler {
        { request, caller in
            let (subject, owner) = (try await own(type, request, caller), try caller.endUserID())
            let ready = try await postSessions.advance(subject, owner: owner, from: .inProgress, to: .ready)
            if let id = try await postSessions.virtualAgent(of: ready) {
                switch ready {
                case .chat(let chat): await desk.startPostSession(chat, virtualAgentID: id, endUserID: owner)
                case .call(let call): await desk.startPostSession(call, virtualAgentID: id, endUserID: owner)
                }
            }
            return try json(ready)
        }
    }

    private func survey(_ type: CommunicationType) -> CallerHandler {
        { request, caller in try .json(try await postSessions.survey(of: try await own(type, request, caller))) }
    }

    private func submitSurvey(_ type: CommunicationType) -> CallerHandler {
        { request, caller in
            let subject = try await own(type, request, caller)
            try await postSessions.submit(try request.decode(SurveyRequest.self).answers, toSurveyOf: subject, owner: try caller.endUserID())
            return .noContent
        }
    }

    private func rate(_ type: CommunicationType) -> CallerHandler {
        { request, caller in
            let subject = try await own(type, request, caller)
            try await postSessions.rate(try request.decode(RatingRequest.self), for: subject, owner: try caller.endUserID())
            return .noContent
        }
    }

    /// The caller's chat or call named in the path; another end user's is not found.
    private func own(_ type: CommunicationType, _ request: HTTPRequest, _ caller: Caller) async throws -> PostSessions.Subject {
        if type == .calls {
            return .call(try await calls.call(try request.integerParameter("id", "call id"), endUserID: try caller.endUserID()))
        }
        return .chat(try await callers.ownChat(request, caller))
    }

    private func json(_ subject: PostSessions.Subject) throws -> HTTPResponse {
        switch subject {
        case .chat(let chat): try .json(chat)
        case .call(let call): try .json(call)
        }
    }
}
