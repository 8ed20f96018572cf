import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The host's automatic answers to forms (docs/plugins.md): when an agent sends a custom
/// form (by id) or a web form (by external form id) that some plugin's `forms` handles
/// (or `"*"`), the host fetches the definition, calls the handler with it, checks the
/// answers against the question types and required flags, and submits them (a custom
/// form) or sends the signed form-complete event with them (a web form).
///
/// ```lua
/// forms = { [10] = function(form, ctx) return { [form.questions[1].id] = "Jane" } end }
/// ```
struct FormResponder: PluginResponder {
    let sdk: CCAI
    let plugins: PluginHost
    let logger: ScriptLogger
    let failures: PluginFailures?

    /// Answers the forms agents send in the SDK's chats for as long as `state` lives.
    func answerRequests(while state: LuaState) {
        guard let stream = sdk.chatService?.messagesReceived else { return }
        Task { [weak state] in
            for await messages in stream {
                guard state != nil else { return }
                for message in messages {
                    if let form = message.form { Task { await answer(form) } }
                    if let webForm = message.webForm { Task { await answer(webForm) } }
                }
            }
        }
    }

    /// Answers a custom form through the plugins; false when none handles it.
    @discardableResult
    func answer(_ form: CustomForm) async -> Bool {
        guard let chat = sdk.chatService, let requestID = form.smartActionId,
            await plugins.handles(.forms, key: String(form.id))
        else { return false }
        do {
            let details = try await chat.getCustomFormDetails(form)
            var argument = try LuaEncoder().encode(details)
            argument = merged(argument, ["smart_action_id": .integer(Int64(requestID)), "kind": "custom"])
            guard let answers = await answers(key: String(form.id), argument: argument, questions: details.questions,
                                              label: "forms.\(form.id)")
            else { return true }
            try await chat.submitCustomForm(request: SubmitCustomFormRequest(smartActionId: requestID, formResponse: answers))
        } catch {
            report("answering custom form \(form.id) failed: \(error)", requestID)
        }
        return true
    }

    /// Answers a web form through the plugins; false when none handles it.
    @discardableResult
    func answer(_ request: WebFormRequest) async -> Bool {
        guard let chat = sdk.chatService, await plugins.handles(.forms, key: request.externalFormId) else { return false }
        do {
            let form = try await chat.fetchWebForm(request)
            guard try await chat.validateWebForm(form) else {
                report("web form \(request.externalFormId) is no longer valid", request.smartActionId)
                return true
            }
            var argument = try LuaEncoder().encode(form)
            argument = merged(argument, ["kind": "web", "questions": try LuaEncoder().encode(form.questions ?? [])])
            let answers = await answers(key: request.externalFormId, argument: argument, questions: form.questions,
                                        label: "forms.\(request.externalFormId)")
            let details = FormCompleteDataDetails(message: answers == nil ? "The form could not be completed" : "Form submitted successfully",
                                                  answers: answers)
            let payload = FormCompletePayload(signature: form.signature, data: FormCompleteData(
                smartActionId: form.smartActionId, status: answers == nil ? .failure : .success,
                timestamp: ISO8601DateFormatter().string(from: sdk.clock.now()), details: details))
            try await chat.sendMessage(.formComplete(payload: payload))
        } catch {
            report("answering web form \(request.externalFormId) failed: \(error)", request.smartActionId)
        }
        return true
    }

    /// The handler's answers, checked against `questions` (a web form that declares none
    /// takes any); nil (with the problem recorded on the plugin) when it failed, declined
    /// (nil) or answered what the form does not take.
    private func answers(key: String, argument: LuaValue, questions: [CustomFormQuestion]?, label: String) async
        -> [SubmitCustomFormRequest.Answer]?
    {
        switch await plugins.answer(.forms, key: key, argument: argument, context: [:], reporting: failures) {
        case .unhandled, .failed:
            return nil
        case .answered(let value, let plugin, _):
            guard let table = value.tableValue else {
                if !value.isNil { await plugins.recordError(plugin: plugin, hook: "forms", reporting: failures, "\(label): a table { [question_id] = value } expected, got \(value.typeName)") }
                return nil
            }
            var answers: [SubmitCustomFormRequest.Answer] = []
            for (field, answer) in table.entries {
                guard let id = field.integerValue ?? field.stringValue.flatMap({ Int64($0) }), let text = Self.text(answer) else {
                    await plugins.recordError(plugin: plugin, hook: "forms", reporting: failures, "\(label): answers are { [question_id] = value }, got \(field) = \(answer.typeName)")
                    return nil
                }
                answers.append(SubmitCustomFormRequest.Answer(questionId: Int(id), value: text))
            }
            answers.sort { $0.questionId < $1.questionId }
            guard let questions else { return answers }
            let problems = FormAnswers.problems(answers, for: questions)
            guard problems.isEmpty else {
                await plugins.recordError(plugin: plugin, hook: "forms", reporting: failures, "\(label): " + problems.joined(separator: "; "))
                return nil
            }
            return answers
        }
    }

    /// An answer as the forms API's string: numbers and booleans as text, a list joined
    /// with commas (multiple choice).
    static func text(_ value: LuaValue) -> String? {
        switch value {
        case .string, .data: return value.stringValue
        case .integer(let number): return String(number)
        case .number(let number): return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .table(let table) where table.fields.isEmpty:
            let items = table.sequence.compactMap(text)
            return items.count == table.sequence.count ? items.joined(separator: ",") : nil
        default: return nil
        }
    }

    private func merged(_ value: LuaValue, _ fields: [String: LuaValue]) -> LuaValue {
        guard case .table(var table) = value else { return value }
        for (key, field) in fields { table[key] = field }
        return .table(table)
    }

    private func report(_ message: String, _ requestID: Int) {
        logger.log(LogRecord(level: .error, message: message, fields: [("smart_action_id", .integer(Int64(requestID)))]))
    }
}
