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
    static func install(into chat: inout LuaModule, _ ccai: CCAI) {
        chat.function("get_custom_form_details", LuaSignature("A custom form's definition: title and questions (type, text, required, options).",
                                                             parameters: ["form: { id: integer }"], returns: ["ccai.CustomFormDetails"])) { call in
            let form: CustomForm = try decode(call, "form", "a form table { id = ... } (message.form) expected")
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.getCustomFormDetails(form) }
        }
        chat.function("submit_custom_form", LuaSignature("Submits the answers to a custom form an agent sent; the platform checks them against its questions.",
                                                        parameters: ["request: { smart_action_id: integer, form_response: { question_id: integer, value: string }[] }"])) { call in
            let table = try call.table(1, "request")
            let value = table["request"] ?? .table(table)
            let request: SubmitCustomFormRequest
            do {
                request = try LuaDecoder().decode(SubmitCustomFormRequest.self, from: value)
            } catch let error as DecodingError {
                throw call.argumentError(1, "request", SDKBindings.describe(error))
            }
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.submitCustomForm(request: request) },
                                       push: { _, _ in })
        }
        chat.function("fetch_web_form", LuaSignature("Fetches the web form of an agent's request: url, questions, signature.",
                                                    parameters: ["request: { smart_action_id: integer, external_form_id: string }"],
                                                    returns: ["table"])) { call in
            let request: WebFormRequest = try decode(call, "request", "{ smart_action_id = ..., external_form_id = ... } (message.web_form) expected")
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.fetchWebForm(request) }
        }
        chat.function("validate_web_form", LuaSignature("Whether a fetched web form can still be answered.",
                                                       parameters: ["response: table"], returns: ["boolean"])) { call in
            let response: WebFormResponse = try decode(call, "response", "the table fetch_web_form returned expected")
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.validateWebForm(response) },
                                       push: { valid, output in output.push(.boolean(valid)) })
        }
    }

    private static func decode<Value: Decodable>(_ call: LuaCall, _ name: String, _ expected: String) throws -> Value {
        let table = try call.table(1, name)
        do {
            return try LuaDecoder().decode(Value.self, from: .table(table))
        } catch let error as DecodingError {
            throw call.argumentError(1, name, "\(expected): \(SDKBindings.describe(error))")
        }
    }
}
