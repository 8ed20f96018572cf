import CCAIWire
import Foundation
import Timekeeping

/// What the end user did with a form an agent sent: `submitted` (custom), `completed` or
/// `failed` (web), with the answers.
struct FormOutcome: Sendable, Equatable {
    var status: String
    var answers: [SubmitCustomFormRequest.Answer]
    var message: String?
}

/// Forms as the platform runs them (seed 003): an agent sends one of the configuration's
/// custom or web forms (a `form` or `web_form` message), the app fetches and answers it
/// (answers checked per question type and required flag; a web form's completion carries
/// the signature its fetch gave), and the agent waiting gets the answers.
///
/// ```swift
/// let outcome = try await forms.send(.custom(details), in: chat.id, endUserID: owner, from: sender, timeout: 300)
/// ```
struct Forms: Sendable {
    /// A form an agent sends: one of the configuration's custom or web forms.
    enum FormToSend: Sendable {
        case custom(CustomFormDetailsResponse)
        case web(WebFormConfiguration)
    }

    /// What `/web_forms/validate` checks of the `WebFormResponse` sent back: its request,
    /// form, expiry and signature (its other fields are ignored).
    struct FetchedWebForm: Decodable {
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

    /// How long a fetched web form's signature stays valid.
    static let webFormLifetime: TimeInterval = 15 * 60

    let configuration: SandboxConfiguration
    let store: SandboxStore
    let conversation: Conversation
    let clock: any TimeSource
    /// Agents waiting for the end user's answers.
    let outcomes: OutcomeBoard<FormOutcome>

    init(configuration: SandboxConfiguration, store: SandboxStore, conversation: Conversation, clock: any TimeSource) {
        (self.configuration, self.store, self.conversation, self.clock) = (configuration, store, conversation, clock)
        outcomes = OutcomeBoard(clock: clock)
    }

    /// Sends a form request as a chat message from `sender`, then waits up to `timeout`
    /// seconds for the outcome; nil on timeout or when the chat ends.
    func send(_ form: FormToSend, in chatID: Int, endUserID: Int, from sender: ChatMessageSender, timeout: TimeInterval)
        async throws -> FormOutcome?
    {
        let request = try await post(form, in: chatID, endUserID: endUserID, from: sender)
        let store = self.store
        return await outcomes.wait(for: .init(chatID: chatID, id: request.id), timeout: timeout) {
            guard let current = try? await store.formRequest(id: request.id, endUserID: endUserID)?.request,
                current.status != .requested
            else { return nil }
            return FormOutcome(status: current.status.rawValue, answers: current.answers, message: current.message)
        }
    }

    /// Sends a form request as a chat message from `sender`, without waiting: the request
    /// (its id is the message's `smart_action_id`).
    @discardableResult
    func post(_ form: FormToSend, in chatID: Int, endUserID: Int, from sender: ChatMessageSender) async throws
        -> SandboxStore.FormRequest
    {
        let request: SandboxStore.FormRequest
        let message: Conversation.Message
        switch form {
        case .custom(let details):
            request = try await store.addFormRequest(chatID: chatID, kind: .custom, formID: details.id, externalFormID: nil,
                                                     now: clock.now())
            message = .init(sender: sender, type: .form, text: details.title ?? details.name, event: "formRequested",
                            form: CustomForm(id: details.id, name: details.name, title: details.title, subtitle: details.subtitle,
                                             smartActionId: request.id, header: details.header, footer: details.footer))
        case .web(let configuration):
            request = try await store.addFormRequest(chatID: chatID, kind: .web, formID: nil,
                                                     externalFormID: configuration.externalFormId, now: clock.now())
            message = .init(sender: sender, type: .webForm, text: configuration.title, event: "formRequested",
                            webForm: WebFormRequest(smartActionId: request.id, externalFormId: configuration.externalFormId,
                                                    title: configuration.title))
        }
        try await conversation.post(message, in: chatID, endUserID: endUserID)
        return request
    }

    /// The forms sent in a chat, oldest first, with their status and answers.
    func requests(inChat chatID: Int) async throws -> [SandboxStore.FormRequest] {
        try await store.formRequests(chatID: chatID)
    }

    /// The custom form `id`, or a 404.
    func customForm(_ id: Int) throws -> CustomFormDetailsResponse {
        guard let form = configuration.customForm(id) else { throw HTTPError.notFound("there is no custom form \(id)") }
        return form
    }

    /// The end user's answers to a custom form an agent sent.
    func submit(_ submission: SubmitCustomFormRequest, endUserID: Int) async throws {
        let (form, chat) = try await openRequest(submission.smartActionId, kind: .custom, endUserID: endUserID)
        guard let details = configuration.customForm(form.formID ?? -1) else {
            throw HTTPError.notFound("custom form \(form.formID ?? -1) no longer exists")
        }
        let answers = submission.formResponse.map {
            SubmitCustomFormRequest.Answer(questionId: $0.questionId, value: $0.value.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try check(answers, against: details.questions)
        try await settle(form, chat: chat, status: .submitted, answers: answers, message: nil)
    }

    /// The web form an agent sent, signed for `webFormLifetime`.
    func fetch(_ fetch: WebFormRequest, endUserID: Int) async throws -> WebFormResponse {
        let (form, _) = try await openRequest(fetch.smartActionId, kind: .web, endUserID: endUserID)
        guard form.externalFormID == fetch.externalFormId else {
            throw HTTPError.badRequest("external_form_id: smart action \(form.id) is the web form '\(form.externalFormID ?? "")', not '\(fetch.externalFormId)'")
        }
        let configured = configuration.webForm(fetch.externalFormId)
        let expiresAt = (clock.now().timeIntervalSince1970 + Forms.webFormLifetime).rounded(.down)
        let signature = signature(requestID: form.id, externalFormID: fetch.externalFormId, expiresAt: expiresAt)
        var url = URLComponents(string: configured?.url ?? "https://forms.sandbox.invalid/\(fetch.externalFormId)")
        let query = (url?.queryItems ?? []) + [URLQueryItem(name: "smart_action_id", value: String(form.id)),
                                               URLQueryItem(name: "signature", value: signature)]
        url?.queryItems = query
        return WebFormResponse(smartActionId: form.id, externalFormId: fetch.externalFormId, title: configured?.title,
                               url: url?.string ?? "", signature: signature, expiresAt: expiresAt, questions: configured?.questions)
    }

    /// Whether a fetched web form can still be completed, and why not.
    func validate(_ form: FetchedWebForm, endUserID: Int) async -> WebFormValidation {
        guard let (request, chat) = try? await store.formRequest(id: form.smartActionId, endUserID: endUserID),
            request.kind == .web, request.externalFormID == form.externalFormId
        else { return WebFormValidation(valid: false, reason: "there is no such web form request") }
        guard chat.isInProgress else { return WebFormValidation(valid: false, reason: "the chat has ended") }
        guard request.status == .requested else { return WebFormValidation(valid: false, reason: "the form was answered already") }
        guard form.expiresAt >= clock.now().timeIntervalSince1970 else {
            return WebFormValidation(valid: false, reason: "the form has expired; fetch it again")
        }
        guard isGenuine(form.signature, for: request) else {
            return WebFormValidation(valid: false, reason: "the signature does not match")
        }
        return WebFormValidation(valid: true)
    }

    /// The signed form-complete event of a web form in `chat`: posted as the end user's
    /// `form_complete` message, and the agent waiting gets the answers.
    func complete(_ payload: FormCompletePayload, in chat: ChatResponse, by caller: Caller) async throws -> ChatMessage {
        guard payload.type == ChatMessageType.formComplete.rawValue else {
            throw HTTPError.badRequest("type: '\(ChatMessageType.formComplete)' expected, got '\(payload.type)'")
        }
        let endUserID = try caller.endUserID()
        let (form, formChat) = try await openRequest(payload.data.smartActionId, kind: .web, endUserID: endUserID)
        guard formChat.id == chat.id else { throw HTTPError.notFound("chat \(chat.id) has no web form \(form.id)") }
        guard isGenuine(payload.signature, for: form) else {
            throw HTTPError.forbidden("signature: it is not the one the platform gave for web form \(form.id) (fetch the form again)")
        }
        let answers = payload.data.details.answers ?? []
        if payload.data.status == .success, let questions = configuration.webForm(form.externalFormID ?? "")?.questions {
            try check(answers, against: questions)
        }
        try await settle(form, chat: chat, status: payload.data.status == .success ? .completed : .failed, answers: answers,
                         message: payload.data.details.message)
        let (message, _) = try await conversation.post(
            .init(sender: ChatMessageSender(type: .endUser, name: caller.endUser.name), type: .formComplete,
                  text: payload.data.details.message, event: payload.data.status.rawValue, smartActionID: form.id),
            in: chat.id, endUserID: endUserID)
        return message
    }

    /// The chat ended: agents waiting on its forms get nil.
    func chatEnded(_ chatID: Int) async {
        await outcomes.chatEnded(chatID)
    }

    /// The caller's form request `id` of `kind`, still waiting for its answer, in a chat in
    /// progress.
    private func openRequest(_ id: Int, kind: SandboxStore.FormRequest.Kind, endUserID: Int) async throws
        -> (SandboxStore.FormRequest, ChatResponse)
    {
        guard let (form, chat) = try await store.formRequest(id: id, endUserID: endUserID), form.kind == kind
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
        guard try await store.answerFormRequest(id: form.id, status: status, answers: answers, message: message) else {
            throw HTTPError.conflict("form request \(form.id) was answered already")
        }
        await outcomes.resolve(.init(chatID: chat.id, id: form.id),
                               with: FormOutcome(status: status.rawValue, answers: answers, message: message))
    }

    /// Whether `signature` is what `fetch` gave for the request (it starts with its
    /// expiry) and has not expired.
    private func isGenuine(_ signature: String, for form: SandboxStore.FormRequest) -> Bool {
        guard let expiry = signature.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) else { return false }
        return Double(expiry) >= clock.now().timeIntervalSince1970
            && self.signature(requestID: form.id, externalFormID: form.externalFormID ?? "", expiresAt: Double(expiry)) == signature
    }

    /// The signature of a fetched web form: its expiry (Unix seconds), a dot, and the
    /// HMAC-SHA256 (base64url) with the company secret of the request id, the form's external
    /// id and the expiry.
    private func signature(requestID: Int, externalFormID: String, expiresAt: Double) -> String {
        let expiry = Checked.truncated(expiresAt).map(String.init) ?? "0"
        let mac = (try? JWTSigner.signature(of: "\(requestID).\(externalFormID).\(expiry)", algorithm: .hs256,
                                            secret: configuration.company.secret)) ?? ""
        return expiry + "." + mac
    }
}
