import CCAIWire
import Foundation

/// Custom forms and web forms (seed 003): `GET /custom_forms/{id}` (details),
/// `POST /custom_forms/submissions` (answers to a form an agent sent, checked per question
/// type and required flag), `POST /web_forms/fetch` (a signed web form for an agent's
/// request), `POST /web_forms/validate`, and `POST /chats/{id}/form_complete` (the signed
/// form-complete event with the web form's answers).
struct FormRoutes: Sendable {
    let sandbox: Sandbox

    /// How long a fetched web form's signature stays valid.
    static let webFormLifetime: TimeInterval = 15 * 60

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.customForm, customForm),
            (Endpoints.submitCustomForm, submitCustomForm),
            (Endpoints.fetchWebForm, fetchWebForm),
            (Endpoints.validateWebForm, validateWebForm),
            (Endpoints.formComplete, formComplete),
        ], sessions: sandbox)
    }

    private func customForm(_ request: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let id = try request.integerParameter("id", "custom form id")
        guard let form = sandbox.configuration.customForm(id) else { throw HTTPError.notFound("there is no custom form \(id)") }
        return try .json(form)
    }

    private func submitCustomForm(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let submission = try request.decode(SubmitCustomFormRequest.self)
        let (form, chat) = try await openRequest(submission.smartActionId, kind: .custom, session)
        guard let details = sandbox.configuration.customForm(form.formID ?? -1) else {
            throw HTTPError.notFound("custom form \(form.formID ?? -1) no longer exists")
        }
        try check(submission.formResponse, against: details.questions)
        try await settle(form, chat: chat, status: .submitted, answers: submission.formResponse, message: nil)
        return try .json(["status": "submitted"])
    }

    private func fetchWebForm(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let fetch = try request.decode(WebFormRequest.self)
        let (form, _) = try await openRequest(fetch.smartActionId, kind: .web, session)
        guard form.externalFormID == fetch.externalFormId else {
            throw HTTPError.badRequest("external_form_id: smart action \(form.id) is the web form '\(form.externalFormID ?? "")', not '\(fetch.externalFormId)'")
        }
        let configured = sandbox.configuration.webForm(fetch.externalFormId)
        let expiresAt = (sandbox.clock.now().timeIntervalSince1970 + FormRoutes.webFormLifetime).rounded(.down)
        let signature = sandbox.webFormSignature(requestID: form.id, externalFormID: fetch.externalFormId, expiresAt: expiresAt)
        var url = URLComponents(string: configured?.url ?? "https://forms.sandbox.invalid/\(fetch.externalFormId)")
        let query = (url?.queryItems ?? []) + [URLQueryItem(name: "smart_action_id", value: String(form.id)),
                                               URLQueryItem(name: "signature", value: signature)]
        url?.queryItems = query
        return try .json(WebFormResponse(smartActionId: form.id, externalFormId: fetch.externalFormId, title: configured?.title,
                                         url: url?.string ?? "", signature: signature, expiresAt: expiresAt,
                                         questions: configured?.questions))
    }

    private func validateWebForm(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(await validation(of: try request.decode(FetchedWebForm.self), session))
    }

    private func formComplete(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let payload = try request.decode(FormCompletePayload.self)
        guard payload.type == "form_complete" else {
            throw HTTPError.badRequest("type: 'form_complete' expected, got '\(payload.type)'")
        }
        let (form, formChat) = try await openRequest(payload.data.smartActionId, kind: .web, session)
        guard formChat.id == chat.id else { throw HTTPError.notFound("chat \(chat.id) has no web form \(form.id)") }
        guard isGenuine(payload.signature, for: form) else {
            throw HTTPError.forbidden("signature: it is not the one the platform gave for web form \(form.id) (fetch the form again)")
        }
        let answers = payload.data.details.answers ?? []
        if payload.data.status == .success, let questions = sandbox.configuration.webForm(form.externalFormID ?? "")?.questions {
            try check(answers, against: questions)
        }
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chat.id, sender: ChatMessageSender(type: "end_user", name: session.endUser.name), type: "form_complete",
            text: payload.data.details.message, event: payload.data.status.rawValue, smartActionID: form.id,
            clientMessageID: nil, now: sandbox.clock.now())
        try await settle(form, chat: chat, status: payload.data.status == .success ? .completed : .failed, answers: answers,
                         message: payload.data.details.message)
        try await sandbox.publisher.messages([message], endUserID: try session.endUserID())
        return try .json(message, status: 201)
    }

    /// The caller's form request `id` of `kind`, still waiting for its answer, in a chat in
    /// progress.
    private func openRequest(_ id: Int, kind: SandboxStore.FormRequest.Kind, _ session: Session) async throws
        -> (SandboxStore.FormRequest, ChatResponse)
    {
        guard let (form, chat) = try await sandbox.store.formRequest(id: id, endUserID: try session.endUserID()), form.kind == kind
        else { throw HTTPError.notFound("there is no \(kind == .custom ? "custom" : "web") form request \(id)") }
        try chat.requireInProgress()
        guard form.status == .requested else { throw HTTPError.conflict("form request \(id) is \(form.status.rawValue) already") }
        return (form, chat)
    }

    private func check(_ answers: [SubmitCustomFormRequest.Answer], against questions: [CustomFormQuestion]) throws {
        let problems = FormAnswers.problems(answers, for: questions)
        guard problems.isEmpty else { throw HTTPError.badRequest("the answers do not fit the form: " + problems.joined(separator: "; ")) }
    }

    private func settle(_ form: SandboxStore.FormRequest, chat: ChatResponse, status: SandboxStore.FormRequest.Status,
                        answers: [SubmitCustomFormRequest.Answer], message: String?) async throws {
        guard try await sandbox.store.answerFormRequest(id: form.id, status: status, answers: answers, message: message) else {
            throw HTTPError.conflict("form request \(form.id) was answered already")
        }
        await sandbox.formOutcomes.resolve(.init(chatID: chat.id, id: form.id),
                                           with: FormOutcome(status: status.rawValue, answers: answers, message: message))
    }

    /// Whether `signature` is what `/web_forms/fetch` gave for the request (it starts
    /// with its expiry) and has not expired.
    private func isGenuine(_ signature: String, for form: SandboxStore.FormRequest) -> Bool {
        guard let expiry = signature.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) else { return false }
        return Double(expiry) >= sandbox.clock.now().timeIntervalSince1970
            && sandbox.webFormSignature(requestID: form.id, externalFormID: form.externalFormID ?? "", expiresAt: Double(expiry))
                == signature
    }

    /// What `validateWebForm` checks of the `WebFormResponse` sent back: its request,
    /// form, expiry and signature (its other fields are ignored).
    private struct FetchedWebForm: Decodable {
        var smartActionId: Int
        var externalFormId: String
        var signature: String
        var expiresAt: Double

        enum CodingKeys: String, CodingKey {
            case smartActionId = "smart_action_id"
            case externalFormId = "external_form_id"
            case signature
            case expiresAt = "expires_at"
        }
    }

    private func validation(of form: FetchedWebForm, _ session: Session) async -> WebFormValidation {
        guard let (request, chat) = try? await sandbox.store.formRequest(id: form.smartActionId, endUserID: try session.endUserID()),
            request.kind == .web, request.externalFormID == form.externalFormId
        else { return WebFormValidation(valid: false, reason: "there is no such web form request") }
        guard chat.isInProgress else { return WebFormValidation(valid: false, reason: "the chat has ended") }
        guard request.status == .requested else { return WebFormValidation(valid: false, reason: "the form was answered already") }
        guard form.expiresAt >= sandbox.clock.now().timeIntervalSince1970 else {
            return WebFormValidation(valid: false, reason: "the form has expired; fetch it again")
        }
        guard isGenuine(form.signature, for: request) else {
            return WebFormValidation(valid: false, reason: "the signature does not match")
        }
        return WebFormValidation(valid: true)
    }
}
