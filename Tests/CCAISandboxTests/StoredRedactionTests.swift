import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The end user's messages are redacted once, when they are stored, and read back as
/// stored: by agents and by transcripts. Checked in the data folder itself.
@Suite struct StoredRedactionTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("redaction-\(UUID().uuidString)").path
    }

    private func sandbox(_ folder: String) throws -> InProcessClient {
        InProcessClient(try Sandbox(dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning)))
    }

    private func database(_ folder: String) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: URL(fileURLWithPath: folder).appendingPathComponent("sandbox.sqlite").path)
    }

    /// The text and the redacted text stored for the end user's messages.
    private func stored(_ folder: String) throws -> [(text: String?, redacted: String?)] {
        try database(folder).query("SELECT text, redacted_text FROM messages WHERE sender_type = 'end_user' ORDER BY id")
            .map { ($0[0].textValue, $0[1].textValue) }
    }

    private func transcriptText(_ client: InProcessClient, chat: Int, token: String) async throws -> String {
        let reply = await client.call("GET", "/chats/\(chat)/transcript", token: token)
        #expect(reply.status == 200)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-\(UUID().uuidString).pdf")
        try reply.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", file.path, "-"])
    }

    /// A chat on Billing (a redacting queue) with one message of the end user's.
    private func chat(_ client: InProcessClient, _ identifier: String, saying text: String) async throws -> (token: String, chat: Int) {
        let token = try await client.signIn(identifier, at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        let greeted = await eventually {
            await client.call("GET", "/chats/\(chat.id)/messages", token: token).text.contains("How can I help")
        }
        #expect(greeted, "the agent has taken the chat")
        let posted = await client.call("POST", "/chats/\(chat.id)/messages", token: token,
                                       json: #"{"text": "\#(text)", "client_message_id": "r1"}"#)
        #expect(posted.status == 201)
        let answered = await eventually {
            await client.call("GET", "/chats/\(chat.id)/messages", token: token).text.contains("You said")
        }
        #expect(answered, "the agent has answered: nothing more is written")
        return (token, chat.id)
    }

    @Test func aMessageIsRedactedWhenStoredAndReadAsStored() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = try sandbox(folder)
        let (token, chat) = try await chat(client, "stored-ana", saying: "card 4111 1111 1111 1111, thanks")
        #expect(try stored(folder).map(\.text) == ["card 4111 1111 1111 1111, thanks"], "the end user's own text is kept")
        #expect(try stored(folder).map(\.redacted) == ["card [card], thanks"], "and what agents see of it, once")
        try database(folder).run("UPDATE messages SET redacted_text = 'card [as stored], thanks' WHERE sender_type = 'end_user'")
        let text = try await transcriptText(client, chat: chat, token: token)
        #expect(text.contains("card [as stored], thanks"), "the transcript reads the stored redaction, not a new one:\n\(text)")
        #expect(!text.contains("4111 1111"))
    }

    @Test func aDataFolderOfAnEarlierVersionIsRedactedOnceWhenOpened() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try sandbox(folder)
        let (token, chat) = try await chat(first, "earlier-ana", saying: "mail ana@acme.test or call 415-555-3423")
        try database(folder).execute("ALTER TABLE messages DROP COLUMN redacted_text")
        let second = try sandbox(folder)
        #expect(try stored(folder).map(\.redacted) == ["mail [email] or call [phone]"])
        let text = try await transcriptText(second, chat: chat, token: token)
        #expect(text.contains("mail [email] or call [phone]") && !text.contains("acme.test"), "\(text)")
    }

    /// Nothing is kept beside a text with nothing to redact, nor for agents' messages.
    @Test func onlyWhatHadSomethingToRedactKeepsARedactedText() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = try sandbox(folder)
        _ = try await chat(client, "plain-ana", saying: "my order is late")
        #expect(try stored(folder).map(\.redacted) == [nil])
        let agents = try database(folder).query("SELECT count(*) FROM messages WHERE sender_type != 'end_user' AND redacted_text IS NOT NULL")
        #expect(agents.first?.first?.integerValue == 0)
    }
}
