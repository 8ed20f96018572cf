import CCAIWire
import Foundation

/// Custom forms and web forms (seed 003): `GET /custom_forms/{id}` (details),
/// `POST /custom_forms/submissions` (answers to a form an agent sent),
/// `POST /web_forms/fetch` (a signed web form for an agent's request),
/// `POST /web_forms/validate`, and `POST /chats/{id}/form_complete` (the signed
/// form-complete event with the web form's answers). The rules are ``Forms``'.
struct FormRoutes: Sendable {
    let callers: CallerResolver
    let forms: Forms

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.customForm, customForm),
            (Endpoints.submitCustomForm, submitCustomForm),
            (Endpoints.fetchWebForm, fetchWebForm),
            (Endpoints.validateWebForm, validateWebForm),
            (Endpoints.formComplete, formComplete),
        ], callers: callers)
    }

    private func customForm(_ request: HTTPRequest, _: Caller) async throws -> HTTPResponse {
        try .json(try forms.customForm(try request.integerParameter("id", "custom form id")))
    }

    private func submitCustomForm(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try await forms.submit(try request.decode(SubmitCustomFormRequest.self), endUserID: try caller.endUserID())
        return try .json(["status": "submitted"])
    }

    private func fetchWebForm(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await forms.fetch(try request.decode(WebFormRequest.self), endUserID: try caller.endUserID()))
    }

    private func validateWebForm(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(await forms.validate(try request.decode(Forms.FetchedWebForm.self), endUserID: try caller.endUserID()))
    }

    private func formComplete(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        return try .json(try await forms.complete(try request.decode(FormCompletePayload.self), in: chat, by: caller),
                         status: 201)
    }
}
