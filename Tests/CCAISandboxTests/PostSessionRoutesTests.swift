@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Post-session settings, ratings, the operator's report and transcripts, in process.
@Suite struct PostSessionRoutesTests {
    private func sandbox(_ configuration: SandboxConfiguration = .builtIn) throws -> InProcessClient {
        InProcessClient(try Sandbox(configuration: configuration, clock: ManualClock(QueueMenuTests.mondayMorning)))
    }

    /// The text pdftotext reads from a PDF.
    private func text(ofPDF data: Data) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-\(UUID().uuidString).pdf")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", file.path, "-"])
    }

    /// Waits for the agent's first message of a chat (the agent joins on its own task).
    private func agentGreeting(_ client: InProcessClient, chat: Int, token: String) async throws {
        let greeted = try await eventually {
            try await client.call("GET", "/chats/\(chat)/messages", token: token).decode(as: [ChatMessage].self)
                .contains { $0.sender.type == "agent" }
        }
        #expect(greeted, "the agent greets")
    }

    @Test func theTranscriptIsAPDFWhoseTextReadsBack() async throws {
        let client = try sandbox()
        let ana = try await client.signIn("transcript-ana", at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 1, "lang": "en"}"#).decode(as: ChatResponse.self)
        try await agentGreeting(client, chat: chat.id, token: ana)
        for (index, text) in ["Café crème, naïve façade", "Καλημέρα κόσμε", "Привет, мир", "My card is 4111 1111 1111 1111"].enumerated() {
            let body = #"{"text": "\#(text)", "client_message_id": "m\#(index)"}"#
            #expect(await client.call("POST", "/chats/\(chat.id)/messages", token: ana, json: body).status == 201)
        }
        let reply = await client.call("GET", "/chats/\(chat.id)/transcript", token: ana)
        #expect(reply.status == 200 && reply.headers["Content-Type"] == "application/pdf")
        #expect(reply.headers["Content-Disposition"]?.contains("chat-\(chat.id)-transcript.pdf") == true)
        #expect(reply.body.starts(with: Data("%PDF-".utf8)))
        let text = try await text(ofPDF: reply.body)
        for expected in ["Acme · Chat transcript", "Billing", "Café crème, naïve façade", "Καλημέρα κόσμε", "Привет, мир",
                         "Ava (agent)", "Hi, I'm Ava."] {
            #expect(text.contains(expected), "\(expected) in:\n\(text)")
        }
        #expect(!text.contains("4111"), "the end user's text as the agent saw it, redacted")
        let bob = try await client.signIn("transcript-bob", at: QueueMenuTests.mondayMorning)
        #expect(await client.call("GET", "/chats/\(chat.id)/transcript", token: bob).status == 404, "only one's own chats")
    }

    @Test func aLongChatFlowsOverPagesWithEveryMessage() async throws {
        let chat = ChatResponse(id: 3, status: .ended, menuId: 8, lang: "en", createdAt: 1_796_061_600, endedAt: 1_796_065_200)
        let messages = (1...1_000).map { (number: Int) -> ChatMessage in
            let isAgent = number % 2 == 0
            let sender = ChatMessageSender(type: isAgent ? "agent" : "end_user", name: isAgent ? "Ben" : nil)
            let filler = String(repeating: "lorem ipsum ", count: number == 500 ? 900 : 3)
            return ChatMessage(id: number, chatId: 3, sequence: number, sender: sender, text: "Message \(number): " + filler,
                               createdAt: 1_796_061_600 + Double(number))
        }
        let pdf = try ChatTranscript(chat: chat, messages: messages, companyName: "Acme", queueName: "Overflow",
                                     timeZone: TimeZone(identifier: "America/Los_Angeles")!, endUserName: "Ana").pdf()
        let text = try await text(ofPDF: pdf)
        let missing = (1...1_000).filter { !text.contains("Message \($0):") }
        #expect(missing.isEmpty, "every message is in the PDF, across page breaks; missing: \(missing.prefix(10))")
        #expect(text.contains("Page 2") && text.contains("lorem ipsum lorem ipsum"))
        #expect(text.contains("Ana · 2026-"), "the end user's name and the company's time")
        #expect(text.contains("PST"), "times in the company's time zone")
    }

    @Test func controlCharactersNeverReachTheLayout() {
        #expect(PDFDocument.printable("a\u{0}b\u{1B}[2Jc\nd\te\u{85}") == "a\u{FFFD}b\u{FFFD}[2Jc\nd\te\u{FFFD}")
    }

    @Test func theOperatorReadsRatingsWithTheAdminToken() async throws {
        var configuration = SandboxConfiguration.builtIn
        let closed = try sandbox(configuration)
        #expect(await closed.call("GET", "/admin/ratings").status == 403, "no admin token configured: refused")
        configuration.adminToken = "operator-token"
        let client = try sandbox(configuration)
        #expect(await client.call("GET", "/admin/ratings").status == 401)
        #expect(await client.call("GET", "/admin/ratings", token: "operator-tokeX").status == 403)
        let ana = try await client.signIn("rating-ana", at: QueueMenuTests.mondayMorning)
        #expect(await client.call("GET", "/admin/ratings", token: ana).status == 403, "an end user's token is not the admin's")

        let chat = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 8}"#).decode(as: ChatResponse.self)
        #expect(chat.postSessionRequired && chat.postSessionOptInRequired == false, "the company's CSAT")
        let early = await client.call("POST", "/chats/\(chat.id)/post_session/start", token: ana)
        #expect(early.status == 409 && early.text.contains("still in progress"))
        _ = await client.call("POST", "/chats/\(chat.id)/end", token: ana)
        let settings = try await client.call("GET", "/chats/\(chat.id)/post_session", token: ana).decode(as: PostSessionSettings.self)
        #expect(settings == PostSessionSettings(csat: true))
        #expect(await client.call("POST", "/chats/\(chat.id)/rating", token: ana, json: #"{"rating": 5}"#).status == 409,
                "not before the phase is ready")
        #expect(await client.call("POST", "/chats/\(chat.id)/post_session/ready", token: ana).status == 409, "start comes first")
        #expect(await client.call("POST", "/chats/\(chat.id)/post_session/start", token: ana).status == 200)
        #expect(await client.call("POST", "/chats/\(chat.id)/post_session/ready", token: ana).status == 200)
        for bad in [#"{"rating": 1e300}"#, #"{"rating": "five"}"#, #"{"rating": 6}"#, #"{}"#, "not json"] {
            let reply = await client.call("POST", "/chats/\(chat.id)/rating", token: ana, json: bad)
            #expect(reply.status == 400 && reply.text.contains("rating") || reply.text.contains("JSON"), "\(bad): \(reply.text)")
        }
        #expect(await client.call("POST", "/chats/\(chat.id)/rating", token: ana, json: #"{"rating": 4, "feedback": "Kind"}"#).status == 204)
        #expect(await client.call("POST", "/chats/\(chat.id)/rating", token: ana, json: #"{"rating": 4}"#).status == 409)
        let done = try await client.call("GET", "/chats/\(chat.id)", token: ana).decode(as: ChatResponse.self)
        #expect(done.postSessionTransferStatus == .completed)

        let report = try await client.call("GET", "/admin/ratings", token: "operator-token").decode(as: RatingsReport.self)
        #expect(report.ratings.map(\.rating) == [4] && report.ratings.first?.feedback == "Kind")
        #expect(report.ratings.first?.communicationId == chat.id && report.surveys.isEmpty)
    }

    @Test func surveyAnswersNeedIntegerQuestionIds() async throws {
        let client = try sandbox()
        let ana = try await client.signIn("survey-ana", at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 9}"#).decode(as: ChatResponse.self)
        #expect(chat.postSessionOptInRequired == true, "VIP asks for opt-in")
        _ = await client.call("POST", "/chats/\(chat.id)/end", token: ana)
        let survey = try await client.call("GET", "/chats/\(chat.id)/survey", token: ana).decode(as: Survey.self)
        #expect(survey.id == 2 && survey.questions.first?.type == .starRating)
        let reply = await client.call("POST", "/chats/\(chat.id)/survey", token: ana, json: #"{"answers": {"first": "5"}}"#)
        #expect(reply.status == 400 && reply.text.contains("question ids are integers"), "\(reply.text)")
    }

    @Test func theHierarchyResolvesKeyByKey() throws {
        let configuration = SandboxConfiguration.builtIn
        #expect(configuration.postSessionSettings(forMenu: 8).flow(communicationId: 1, communicationType: "chats")?.type == .csat)
        #expect(configuration.postSessionSettings(forMenu: 1).flow(communicationId: 1, communicationType: "chats")?.type == .survey)
        let inherited = configuration.postSessionSettings(forMenu: 21)
        #expect(inherited.virtualAgentId == "feedback-va" && inherited.csat == true, "a child inherits its parent's, key by key")
        #expect(inherited.flow(communicationId: 1, communicationType: "chats")?.type == .virtualAgent, "virtual agent > CSAT")
        #expect(configuration.postSessionSettings(forMenu: 7).flow(communicationId: 1, communicationType: "chats") == nil)
        #expect(configuration.postSessionSettings(forMenu: 9).optIn == true)
    }

    @Test func configurationsNameWhatExists() throws {
        func problem(_ source: String) -> String? {
            do {
                _ = try SandboxConfiguration.parse(source, name: "test")
                return nil
            } catch {
                return "\(error)"
            }
        }
        let company = #"company = { name = "A", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" }"#
        #expect(problem("return { \(company), menus = { { id = 1, name = \"M\", post_session = { survey = \"suport\" } } }, surveys = { support = { questions = { { id = 1, type = \"csat\", text = \"Q\" } } } } }")?
            .contains("there is no survey 'suport' (did you mean 'support'?)") == true)
        #expect(problem("return { \(company), menus = { { id = 1, name = \"M\", post_session = { virtual_agent = \"va\" } } } }")?
            .contains("there is no virtual agent 'va'") == true)
        #expect(problem("return { \(company), surveys = { s = { questions = { { id = 1, type = \"enumeration\", text = \"Q\" } } } } }")?
            .contains("needs options") == true)
        #expect(problem("return { \(company), surveys = { s = { questions = { { id = 1, type = \"stars\", text = \"Q\" } } } } }") != nil)
    }
}
