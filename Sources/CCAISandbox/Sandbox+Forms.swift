import CCAIWire
import Foundation

/// What the end user did with a form an agent sent: `submitted` (custom), `completed` or
/// `failed` (web), with the answers.
struct FormOutcome: Sendable, Equatable {
    var status: String
    var answers: [SubmitCustomFormRequest.Answer]
    var message: String?
}

/// Forms as the platform runs them: an agent sends one (a `form` or `web_form` message),
/// the app fetches and answers it, the agent waiting gets the answers.
extension Sandbox {
    /// A form an agent sends: one of the configuration's custom or web forms.
    enum FormToSend: Sendable {
        case custom(CustomFormDetailsResponse)
        case web(WebFormConfiguration)
    }

    /// Sends a form request as a chat message from the agent, then waits up to `timeout`
    /// seconds for the outcome; nil on timeout or when the chat ends.
    func sendForm(_ actions: AgentActions, _ form: FormToSend, timeout: TimeInterval) async throws -> FormOutcome? {
        guard try await actions.isChatInProgress() else { throw HTTPError.chatEnded(actions.chatID) }
        let request: SandboxStore.FormRequest
        var message: (type: String, title: String?, form: CustomForm?, webForm: WebFormRequest?)
        switch form {
        case .custom(let details):
            request = try await store.addFormRequest(chatID: actions.chatID, kind: .custom, formID: details.id, externalFormID: nil,
                                                     now: clock.now())
            message = ("form", details.title ?? details.name,
                       CustomForm(id: details.id, name: details.name, title: details.title, subtitle: details.subtitle,
                                  smartActionId: request.id, header: details.header, footer: details.footer), nil)
        case .web(let configuration):
            request = try await store.addFormRequest(chatID: actions.chatID, kind: .web, formID: nil,
                                                     externalFormID: configuration.externalFormId, now: clock.now())
            message = ("web_form", configuration.title, nil,
                       WebFormRequest(smartActionId: request.id, externalFormId: configuration.externalFormId, title: configuration.title))
        }
        let (sent, _) = try await store.addMessage(
            chatID: actions.chatID, sender: ChatMessageSender(type: actions.kind.rawValue, name: actions.name), type: message.type,
            text: message.title, event: "formRequested", form: message.form, webForm: message.webForm, clientMessageID: nil,
            now: clock.now())
        try await publisher.messages([sent], endUserID: actions.endUserID)
        let store = self.store, endUserID = actions.endUserID
        return await formOutcomes.wait(for: .init(chatID: actions.chatID, id: request.id), timeout: timeout) {
            guard let current = try? await store.formRequest(id: request.id, endUserID: endUserID)?.request,
                current.status != .requested
            else { return nil }
            return FormOutcome(status: current.status.rawValue, answers: current.answers, message: current.message)
        }
    }

    /// The signature of a fetched web form: its expiry (Unix seconds), a dot, and the
    /// HMAC-SHA256 (base64url) with the company secret of the request id, the form's external
    /// id and the expiry.
    func webFormSignature(requestID: Int, externalFormID: String, expiresAt: Double) -> String {
        let expiry = Checked.truncated(expiresAt).map(String.init) ?? "0"
        let mac = (try? JWTSigner.signature(of: "\(requestID).\(externalFormID).\(expiry)", algorithm: .hs256,
                                            secret: configuration.company.secret)) ?? ""
        return expiry + "." + mac
    }
}
