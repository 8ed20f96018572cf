/// One operation under a chat and under a call, the two the same but for the kind of
/// session: `GET /chats/{id}/survey` (`getSurvey`) and `GET /calls/{id}/survey`
/// (`getCallSurvey`). Said once, made twice: the call's `operationId` puts `Call` after
/// the verb.
///
/// ```swift
/// let survey = ConversationEndpoints("GET", "survey", verb: "get", object: "Survey")
/// survey.call.operation        // "GET /calls/{id}/survey"
/// survey[.chat].operationID    // "getSurvey"
/// ```
public struct ConversationEndpoints: Sendable {
    /// Under `/chats/{id}`.
    public let chat: Endpoint
    /// Under `/calls/{id}`.
    public let call: Endpoint

    /// - Parameters:
    ///   - subpath: the path after the session's id (`post_session/start`).
    ///   - verb: the `operationId`'s verb (`start`), followed by `Call` for a call's.
    ///   - object: the rest of the `operationId` (`PostSession`); may be empty (`rate`, `rateCall`).
    public init(_ method: String, _ subpath: String, verb: String, object: String = "") {
        chat = Endpoint(method, "/chats/{id}/\(subpath)", operationID: verb + object)
        call = Endpoint(method, "/calls/{id}/\(subpath)", operationID: verb + "Call" + object)
    }

    /// The endpoint under a session of `kind`.
    public subscript(_ kind: CommunicationRouter.CommunicationType) -> Endpoint {
        switch kind {
        case .chat: chat
        case .call: call
        }
    }
}
