import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The form methods of `ccai.chat`: `get_custom_form_details`, `submit_custom_form`,
/// `fetch_web_form`, `validate_web_form` (and `send_message{ form_complete = payload }`).
///
/// ```lua
/// local details = ccai.chat.get_custom_form_details(message.form)
/// ccai.chat.submit_custom_form{ smart_action_id = message.form.smart_action_id,
///   form_response = { { question_id = details.questions[1].id, value = "Jane" } } }
/// ```
enum FormBindings {
    static let rows: [Binding<ChatService>] = [
        Binding("get_custom_form_details", "A custom form's definition: title and questions (type, text, required, options).",
                getCustomFormDetails, returns: [.model(CustomFormDetailsResponse.self)]),
        Binding("submit_custom_form", "Submits the answers to a custom form an agent sent; the platform checks them against its "
                + "questions.", submitCustomForm),
        Binding("fetch_web_form", "Fetches the web form of an agent's request: url, questions, signature.", fetchWebForm,
                returns: [.model(WebFormResponse.self)]),
        Binding("validate_web_form", "Whether a fetched web form can still be answered.", validateWebForm,
                returns: [.model(Bool.self)]),
    ]

    static func install(into chat: inout LuaModule, _ ccai: CCAI) {
        chat.functions(rows) { try ChatBindings.requireChat(ccai, $0) }
    }

    static func getCustomFormDetails(_ service: ChatService, _ form: FormArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.getCustomFormDetails(form.value) }
    }

    static func submitCustomForm(_ service: ChatService, _ request: SubmitCustomFormRequest, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { try await service.submitCustomForm(request: request) }, push: { _, _ in })
    }

    static func fetchWebForm(_ service: ChatService, _ request: WebFormArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.fetchWebForm(request.value) }
    }

    static func validateWebForm(_ service: ChatService, _ response: WebFormResponseArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { try await service.validateWebForm(response.value) },
                            push: { valid, output in output.push(.boolean(valid)) })
    }
}

/// `{ smart_action_id = ..., form_response = { { question_id = ..., value = "..." } } }`.
extension SubmitCustomFormRequest: BindingArguments {
    static var layout: ArgumentLayout { .table("request") }
}

/// A form as an agent's message carries it (`message.form`).
struct FormArgument: ValueArgument {
    static let name = "form"
    var value: CustomForm
}

/// A web form request as an agent's message carries it (`message.web_form`).
struct WebFormArgument: ValueArgument {
    static let name = "request"
    var value: WebFormRequest
}

/// The table `fetch_web_form` returned.
struct WebFormResponseArgument: ValueArgument {
    static let name = "response"
    var value: WebFormResponse
}
