import CCAIWire
import Foundation
import Timekeeping

/// How an end user's chat starts: on a queue with a chat channel open now, one chat in
/// progress per end user, within `limits.chats_per_hour`, with the session's custom data
/// checked (reserved CRM keys; a signed part verified with the company secret). The chat
/// starts `queued`, or `pending` when the queue asks for smart actions before the session
/// (it joins the queue on `enqueue`).
///
/// ```swift
/// let started = try await chatStarts.start(body, session: session)
/// if started.preSession.isEmpty { /* hand started.chat to the agents */ }
/// ```
struct ChatStarts: Sendable {
    /// A chat just created, with what its agents get and what it waits for.
    struct Started: Sendable {
        var chat: ChatResponse
        /// What the session carries for the agents (kept with the chat).
        var session: ChatSessionData
        /// The smart actions to request before the chat joins its queue.
        var preSession: [SmartActionType]
    }

    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: ChatLifecycle
    let queues: Queues
    let quotas: Quotas
    let clock: any Clock

    /// Creates the chat `request` asks for, or says why it cannot start.
    func start(_ request: ChatRequest, session: Session) async throws -> Started {
        let menu = try queues.menu(request.menuId)
        let owner = try session.endUserID()
        if let existing = try await store.currentChat(endUserID: owner) { throw inProgress(existing) }
        guard let chatChannel = menu.channels?.chat else { throw HTTPError.badRequest("queue \(menu.id) has no chat channel") }
        try await quotas.check(.chats, endUserID: owner)
        let engine = try await queues.engine()
        if let deflection = engine.deflection(menu) {
            throw HTTPError.conflict("queue \(menu.id) is not taking chats now (\(deflection.reason))")
        }
        let signed = try signedCustomData(request.customData?.signed, session: session)
        var customData = try request.customData?.unsigned.map { try JSONValue(encoding: CustomData(unsigned: $0)) }
        if let unsigned = customData?["unsigned"] {
            let problems = ReservedCRMKey.problems(in: unsigned, signed: false)
            guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        }
        if request.customData?.signed != nil { customData = ["signed": signed] }
        for (part, value) in [("custom_data.unsigned", customData?["unsigned"]), ("custom_data.signed", signed)] {
            guard let value else { continue }
            let size = try value.jsonText().utf8.count
            if let problem = FieldLimits.problem(part, size: size, limit: FieldLimits.customDataBytes) { throw HTTPError.badRequest(problem) }
        }
        let displayOrder = request.displayOrderInAdapter ?? []
        if let problem = ChatSessionData.problem(displayOrder: displayOrder) { throw HTTPError.badRequest(problem) }
        var sessionData = customData?.objectValue ?? [:]
        if signed != [:] { sessionData["signed"] = signed }
        let session = ChatSessionData(customData: .object(sessionData), isVerifiable: request.isVerifiable ?? false,
                                      displayOrderInAdapter: displayOrder)
        let preSession = menu.preSessionChatActions
        switch try await lifecycle.create(
            endUserID: owner, menuID: menu.id, lang: engine.language(request.lang), status: preSession.isEmpty ? .queued : .pending,
            redaction: chatChannel.redaction ?? false, screenShareable: request.isScreenShareable ?? false,
            session: session, postSession: configuration.postSessionSettings(forMenu: menu.id), now: clock.now())
        {
        case .inProgress(let existing):
            throw inProgress(existing)
        case .created(let chat):
            return Started(chat: chat, session: session, preSession: preSession)
        }
    }

    private func inProgress(_ existing: ChatResponse) -> HTTPError {
        HTTPError.conflict("a chat is already in progress (chat \(existing.id)); resume or end it first")
    }

    /// The session's signed custom data: the auth JWT's, with the chat's own signed JWT
    /// (verified with the company secret) over it key by key. Reserved CRM keys must be
    /// booleans.
    private func signedCustomData(_ jwt: String?, session: Session) throws -> JSONValue {
        var signed = session.signedCustomData.objectValue ?? [:]
        guard let jwt else { return .object(signed) }
        let company = configuration.company
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier(secret: company.secret, algorithms: configuration.algorithms,
                                     maximumLifetime: company.jwtMaxLifetimeSeconds ?? 86_400).verify(jwt, now: clock.now())
        } catch let error as JWTError {
            throw HTTPError.badRequest("custom_data.signed: the JWT is refused: \(error)")
        }
        let data = claims["custom_data"] ?? [:]
        let problems = ReservedCRMKey.problems(in: data, signed: true)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        for (key, value) in data.objectValue ?? [:] { signed[key] = value }
        return .object(signed)
    }
}
