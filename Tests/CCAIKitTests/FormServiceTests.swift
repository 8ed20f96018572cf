import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// Custom and web forms from the SDK: the web form delegate, fetch, validate, the
/// form-complete event, custom form details and submission.
@Suite struct FormServiceTests {
    /// Tells the web forms it is given.
    final class WebForms: WebFormDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: AsyncStream<WebFormRequest>.Continuation?
        let requests: AsyncStream<WebFormRequest>

        init() {
            var captured: AsyncStream<WebFormRequest>.Continuation?
            requests = AsyncStream { captured = $0 }
            continuation = captured
        }

        func ccaiWebFormRequested(_ request: WebFormRequest) async {
            lock.withLock { continuation }?.yield(request)
        }
    }

    /// A sandbox whose agent sends custom form 1, then web form "refund", and reports.
    private func formSandbox() async throws -> Sandbox {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-forms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            return function(agent)
              local answers = agent.send_form{ id = 1, timeout = 30 }
              local refund = agent.send_web_form{ external_form_id = "refund", timeout = 30 }
              agent.send("name=" .. tostring(answers and answers[1]) .. " refund=" .. tostring(refund and refund.answers[1]))
            end
            """.write(to: folder.appendingPathComponent("agent.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Forms", channels = { chat = {} } } },
                     agents = { { name = "Fay", menus = { 1 }, script = "agent.lua" } },
                     custom_forms = { { id = 1, title = "Contact", questions = { { id = 1, type = "text", text = "Name", required = true } } } },
                     web_forms = { { external_form_id = "refund", title = "Refund", questions = {
                       { id = 1, type = "number", text = "Amount", required = true } } } } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        return try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path))
    }

    @Test(.timeLimit(.minutes(1))) func formsAreAnsweredThroughTheSDK() async throws {
        let sandbox = try await formSandbox()
        let delegate = SigningDelegate(identifier: "form-filler")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        let webForms = WebForms()
        ccai.initializeChat(ChatOptions(webFormDelegate: webForms))
        let chat = try #require(ccai.chatService)
        var messages = chat.events(named: "messages_received").makeAsyncIterator()
        try await chat.start(request: ChatRequest(menuId: 1))
        var form: CustomForm?
        while let data = await messages.next() {
            if let found = try data.decoded(as: [ChatMessage].self).compactMap(\.form).first { form = found; break }
        }
        let custom = try #require(form)
        let details = try await chat.getCustomFormDetails(custom)
        #expect(details.title == "Contact" && details.questions.first?.required == true)
        do {
            try await chat.submitCustomForm(request: SubmitCustomFormRequest(smartActionId: try #require(custom.smartActionId), formResponse: []))
            Issue.record("a required question left out is refused")
        } catch let error as CCAIError {
            #expect(error.code == .invalidArgument && error.message.contains("required"))
        }
        try await chat.submitCustomForm(request: SubmitCustomFormRequest(smartActionId: try #require(custom.smartActionId),
                                                                         formResponse: [.init(questionId: 1, value: "Ana")]))
        var requests = webForms.requests.makeAsyncIterator()
        let request = try #require(await requests.next(), "the delegate is told about the web form")
        #expect(request.externalFormId == "refund" && request.title == "Refund")
        let web = try await chat.fetchWebForm(request)
        #expect(try await chat.validateWebForm(web))
        let payload = FormCompletePayload(signature: web.signature, data: FormCompleteData(
            smartActionId: web.smartActionId, status: .success, timestamp: "2026-11-30T12:00:00Z",
            details: FormCompleteDataDetails(message: "Form submitted successfully", answers: [.init(questionId: 1, value: "42")])))
        let sent = try await chat.sendMessage(.formComplete(payload: payload))
        #expect(sent.first?.type == "form_complete")
        #expect(try await chat.validateWebForm(web) == false, "answered")
        var report: String?
        while report == nil, let data = await messages.next() {   // the agent's report, as it arrives
            report = try data.decoded(as: [ChatMessage].self)
                .last { $0.sender.type == "agent" && ($0.text ?? "").hasPrefix("name=") }?.text
        }
        #expect(report == "name=Ana refund=42")
        try await chat.endChat()
        #expect(delegate.calls >= 1)
    }
}
