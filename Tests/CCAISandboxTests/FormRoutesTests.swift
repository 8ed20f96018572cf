import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Custom forms and web forms an agent script sends, answered over HTTP.
@Suite struct FormRoutesTests {
    /// A sandbox whose agent sends custom form 1, then web form "refund", then waits.
    private func serve(clock: ManualClock) async throws -> HTTPServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("forms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            return function(agent)
              local answers = agent.send_form{ id = 1, timeout = 30 }
              agent.send("name=" .. tostring(answers and answers[1]))
              local refund = agent.send_web_form{ external_form_id = "refund", timeout = 3600 }
              agent.send("refund=" .. tostring(refund and refund.status))
              agent.wait_for_message{ timeout = 30 }
            end
            """.write(to: folder.appendingPathComponent("agent.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Forms", channels = { chat = {} } } },
                     agents = { { name = "Fay", menus = { 1 }, script = "agent.lua" } },
                     custom_forms = { { id = 1, title = "Contact", questions = {
                       { id = 1, type = "text", text = "Name", required = true },
                       { id = 2, type = "email", text = "E-mail" } } } },
                     web_forms = { { external_form_id = "refund", title = "Refund", questions = {
                       { id = 1, type = "number", text = "Amount", required = true, min = 1 } } } } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        let configuration = try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path)
        return try Sandbox(configuration: configuration, clock: clock).serve()
    }

    private func agentMessages(_ server: some SandboxEndpoint, _ chat: Int, _ token: String, count: Int) async throws -> [ChatMessage] {
        try await SandboxHTTP.agentMessages(server, chat, token, count: count)
    }

    @Test(.timeLimit(.minutes(1))) func formsAreCheckedSignedAndHandedToTheAgent() async throws {
        let clock = ManualClock(Date())
        let server = try await serve(clock: clock)
        let ana = try await SandboxHTTP.token(server, "form-ana", at: clock.now())
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        let formMessage = try #require(try await agentMessages(server, chat.id, ana, count: 1).first)
        let form = try #require(formMessage.form)
        #expect(formMessage.type == "form" && form.id == 1 && form.title == "Contact" && form.smartActionId != nil)
        let details = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/custom_forms/1", ana),
                                             as: CustomFormDetailsResponse.self)
        #expect(details.questions.map(\.type) == [.text, .email])
        #expect(try await SandboxHTTP.call(server, "GET", "/custom_forms/9", ana).status == 404)

        let id = try #require(form.smartActionId)
        let bad = try await SandboxHTTP.call(server, "POST", "/custom_forms/submissions", ana,
                                             #"{"smart_action_id": \#(id), "form_response": [{"question_id": 2, "value": "nope"}]}"#)
        #expect(bad.status == 400 && bad.body.contains("question 2 (E-mail): an e-mail address expected")
                && bad.body.contains("question 1 (Name): required"), "\(bad.body)")
        let bob = try await SandboxHTTP.token(server, "form-bob", at: clock.now())
        let foreign = try await SandboxHTTP.call(server, "POST", "/custom_forms/submissions", bob,
                                                 #"{"smart_action_id": \#(id), "form_response": [{"question_id": 1, "value": "Bob"}]}"#)
        #expect(foreign.status == 404, "another end user's form request is not found")
        let good = #"{"smart_action_id": \#(id), "form_response": [{"question_id": 1, "value": "Ana"}]}"#
        #expect(try await SandboxHTTP.call(server, "POST", "/custom_forms/submissions", ana, good).status == 200)
        #expect(try await SandboxHTTP.call(server, "POST", "/custom_forms/submissions", ana, good).status == 409)

        let messages = try await agentMessages(server, chat.id, ana, count: 3)
        #expect(messages[1].text == "name=Ana", "the agent got the answers")
        let web = try #require(messages[2].webForm)
        #expect(messages[2].type == "web_form" && web.externalFormId == "refund" && web.title == "Refund")
        let wrongForm = try await SandboxHTTP.call(server, "POST", "/web_forms/fetch", ana,
                                                   #"{"smart_action_id": \#(web.smartActionId), "external_form_id": "other"}"#)
        #expect(wrongForm.status == 400)
        let fetched = try SandboxHTTP.decode(try await SandboxHTTP.call(
            server, "POST", "/web_forms/fetch", ana, #"{"smart_action_id": \#(web.smartActionId), "external_form_id": "refund"}"#),
            as: WebFormResponse.self)
        #expect(fetched.url.contains("smart_action_id=\(web.smartActionId)") && fetched.questions?.count == 1)
        func validate(_ form: WebFormResponse) async throws -> WebFormValidation {
            let body = String(decoding: try JSONEncoder().encode(form), as: UTF8.self)
            return try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/web_forms/validate", ana, body),
                                          as: WebFormValidation.self)
        }
        #expect(try await validate(fetched).valid)
        var forged = fetched
        forged.signature += "x"
        #expect(try await validate(forged) == WebFormValidation(valid: false, reason: "the signature does not match"))

        func complete(_ signature: String, _ answers: String) async throws -> Curl.Reply {
            try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/form_complete", ana, """
                {"type": "form_complete", "signature": "\(signature)", "data": {"smart_action_id": \(web.smartActionId),
                 "status": "success", "timestamp": "2026-11-30T12:00:00Z", "details": {"message": "done", "answers": \(answers)}}}
                """)
        }
        #expect(try await complete(forged.signature, "[]").status == 403)
        for hostile in ["1e300.x", "inf.x", "-inf.x", "nan.x", "9223372036854775808.x", "-9223372036854775809.x", ".", ""] {
            #expect(try await complete(hostile, "[]").status == 403, "a signature such as '\(hostile)' is refused, never a crash")
        }
        let invalid = try await complete(fetched.signature, #"[{"question_id": 1, "value": "0"}]"#)
        #expect(invalid.status == 400 && invalid.body.contains("at least 1"), "\(invalid.body)")
        clock.advance(by: 16 * 60)
        #expect(try await validate(fetched).valid == false, "the signature expired")
        #expect(try await complete(fetched.signature, #"[{"question_id": 1, "value": "5"}]"#).status == 403)
        let refetched = try SandboxHTTP.decode(try await SandboxHTTP.call(
            server, "POST", "/web_forms/fetch", ana, #"{"smart_action_id": \#(web.smartActionId), "external_form_id": "refund"}"#),
            as: WebFormResponse.self)
        let completed = try await complete(refetched.signature, #"[{"question_id": 1, "value": "5"}]"#)
        #expect(completed.status == 201)
        #expect(try SandboxHTTP.decode(completed, as: ChatMessage.self).type == "form_complete")
        #expect(try await complete(refetched.signature, #"[{"question_id": 1, "value": "5"}]"#).status == 409)
        #expect(try await agentMessages(server, chat.id, ana, count: 4)[3].text == "refund=completed")
        await server.stop()
    }

    @Test func formDefinitionsAreChecked() async throws {
        for (fields, problem) in [
            (#"custom_forms = { { id = 1, questions = { { id = 1, type = "slider", text = "x" } } } }"#, "type"),
            (#"custom_forms = { { id = 1, questions = { { id = 1, type = "dropdown", text = "x" } } } }"#, "needs options"),
            (#"custom_forms = { { id = 1, questions = {} }, { id = 1, questions = {} } }"#, "used twice"),
            (#"web_forms = { { external_form_id = "a" }, { external_form_id = "a" } }"#, "used twice"),
        ] {
            do {
                _ = try await LuaConfigurations.configuration(fields)
                Issue.record("accepted: \(fields)")
            } catch let error as ConfigurationError {
                #expect(error.message.contains(problem), "\(error.message)")
            }
        }
    }
}
