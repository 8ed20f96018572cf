@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Transcripts under load: the bounds of one rendering, the renderer's queue, the cache,
/// and a storm of requests beside other users' sign-ins.
@Suite struct TranscriptTests {
    private static let chat = ChatResponse(id: 9, status: .ended, menuId: 1, lang: "en", createdAt: 1_796_061_600)

    private func transcript(_ messages: [ChatMessage], endUserName: String? = "Ana") -> ChatTranscript {
        ChatTranscript(chat: Self.chat, messages: messages, companyName: "Acme", queueName: "Billing", timeZone: .gmt,
                       endUserName: endUserName)
    }

    private func message(_ number: Int, _ text: String, sender: ChatMessageSender = ChatMessageSender(type: "end_user"))
        -> ChatMessage
    {
        ChatMessage(id: number, chatId: 9, sequence: number, sender: sender, text: text, createdAt: 1_796_061_600 + Double(number))
    }

    /// The text and the page count of a PDF, as poppler reads them.
    private func read(_ pdf: Data) async throws -> (text: String, pages: Int) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let text = try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", file.path, "-"])
        let info = try await runTool("/usr/bin/pdfinfo", [file.path])
        let pages = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
        return (text, pages ?? 0)
    }

    /// A 1 MB name on every message and a 1 MB message: cut before pango lays them out
    /// (laying out such a paragraph took minutes), the cut said.
    @Test(.timeLimit(.minutes(1)))
    func aHugeNameOrMessageIsCutBeforeItIsLaidOut() async throws {
        let name = String(repeating: "N", count: 1 << 20)
        var messages = (1...30).map { message($0, "hello \($0)", sender: ChatMessageSender(type: "end_user", name: name)) }
        messages.append(message(31, String(repeating: "word ", count: 1 << 18)))
        let (text, pages) = try await read(try transcript(messages, endUserName: name).pdf())
        #expect(text.contains("hello 1") && text.contains("hello 30"), "every message is there, under its cut name")
        #expect(text.contains("\(1 << 20 - ChatTranscript.maximumNameBytes) more bytes not shown"), "the name's cut is said")
        #expect(text.contains("more bytes not shown]"), "the long message's cut is said")
        #expect(pages >= 1 && pages <= ChatTranscript.maximumPages)
    }

    /// Long messages, many of them: the transcript stops at its bytes of text and says
    /// which messages it shows.
    @Test func aTranscriptStopsAtItsBytesOfTextAndSaysWhatItLeftOut() async throws {
        let filler = String(repeating: "lorem ipsum ", count: 800)
        let messages = (1...200).map { message($0, "Message \($0): " + filler) }
        let (text, pages) = try await read(try transcript(messages).pdf())
        let shown = ChatTranscript.maximumTextBytes / (filler.utf8.count + 30)
        #expect(text.contains("Message 1:") && text.contains("Message \(shown - 1):") && !text.contains("Message 200:"))
        #expect(text.contains("The transcript shows messages 1 to") && text.contains("of 200"), "\(text.suffix(400))")
        #expect(pages <= ChatTranscript.maximumPages)
    }

    /// Many short messages: the transcript stops at its last page, with the notice there.
    @Test func aTranscriptStopsAtItsLastPageAndSaysWhatItLeftOut() async throws {
        let count = ChatTranscript.maximumMessages + 3
        let messages = (1...count).map { message($0, "m\($0)") }
        let (text, pages) = try await read(try transcript(messages).pdf())
        #expect(pages == ChatTranscript.maximumPages)
        #expect(text.contains("m1\n") && !text.contains("m\(count)\n"))
        #expect(text.contains("The transcript shows messages 1 to") && text.contains("of \(count)"), "the cut is said, not silent")
        #expect(text.contains("at most \(ChatTranscript.maximumMessages) messages, \(ChatTranscript.maximumTextBytes) bytes of text"))
    }

    /// A sandbox whose end users are not held back by the request rate.
    private func configuration() -> SandboxConfiguration {
        var configuration = SandboxConfiguration.builtIn
        var limits = LimitsConfiguration()
        limits.requestsPerSecond = 10_000
        limits.burst = 10_000
        configuration.limits = limits
        return configuration
    }

    @Test func aSecondRequestForAnUnchangedChatRendersNothing() async throws {
        let sandbox = try Sandbox(configuration: configuration(), clock: ManualClock(QueueMenuTests.mondayMorning))
        let client = InProcessClient(sandbox)
        let ana = try await client.signIn("cache-ana", at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        func agentSaid(_ text: String) async -> Bool {
            await eventually { await client.call("GET", "/chats/\(chat.id)/messages", token: ana).text.contains(text) }
        }
        #expect(await agentSaid("How can I help"))
        #expect(await client.call("POST", "/chats/\(chat.id)/messages", token: ana, json: #"{"text": "first", "client_message_id": "c1"}"#).status == 201)
        #expect(await agentSaid("You said: \\\"first"), "the chat is still: nothing more is written")
        let renderer = sandbox.transcripts.renderer
        let first = await client.call("GET", "/chats/\(chat.id)/transcript", token: ana)
        let again = await client.call("GET", "/chats/\(chat.id)/transcript", token: ana)
        #expect(first.status == 200 && again.body == first.body)
        #expect(renderer.renderings == 1, "the second request is answered from the cache")
        #expect(await client.call("POST", "/chats/\(chat.id)/messages", token: ana, json: #"{"text": "second", "client_message_id": "c2"}"#).status == 201)
        #expect(await agentSaid("You said: \\\"second"))
        let changed = await client.call("GET", "/chats/\(chat.id)/transcript", token: ana)
        #expect(renderer.renderings == 2, "a new message makes a new transcript")
        #expect(try await read(changed.body).text.contains("second"))
    }

    @Test func theCacheKeepsTheMostRecentlyUsedWithinItsBytes() {
        let cache = TranscriptCache(maximumBytes: 100)
        func version(_ count: Int) -> TranscriptVersion {
            TranscriptVersion(chat: Self.chat, endUserName: nil, messages: .init(count: count, lastSequence: count, files: 0))
        }
        cache.insert(Data(count: 40), chatID: 1, version: version(1))
        cache.insert(Data(count: 40), chatID: 2, version: version(1))
        #expect(cache.pdf(chatID: 1, version: version(1)) != nil)
        cache.insert(Data(count: 40), chatID: 3, version: version(1))
        #expect(cache.pdf(chatID: 2, version: version(1)) == nil, "the least recently used went")
        #expect(cache.pdf(chatID: 1, version: version(1)) != nil && cache.pdf(chatID: 3, version: version(1)) != nil)
        #expect(cache.pdf(chatID: 1, version: version(2)) == nil, "a changed chat is not answered from the cache")
        cache.insert(Data(count: 101), chatID: 4, version: version(1))
        #expect(cache.pdf(chatID: 4, version: version(1)) == nil && cache.bytes == 80, "larger than the cache: not kept")
    }

    /// One rendering under way (held), four waiting: an end user with a rendering of another
    /// chat gets a 429 with Retry-After; a request for a rendering already admitted waits for
    /// it. (Who gets a 503 when the queue is full: `aFewEndUsersAskingInALoopNeverKeepTheOthersOut`.)
    @Test(.timeLimit(.minutes(1)))
    func theRendererQueuesABoundedNumberAndJoinsTheSame() async throws {
        let renderer = TranscriptRenderer()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        func version(_ chatID: Int) -> TranscriptVersion {
            var chat = Self.chat
            chat.id = chatID
            return TranscriptVersion(chat: chat, endUserName: nil, messages: .init(count: 1, lastSequence: 1, files: 0))
        }
        func render(_ chatID: Int, by endUserID: Int, held: Bool = false) -> Task<Data, any Error> {
            Task {
                try await renderer.render(chatID: chatID, version: version(chatID), endUserID: endUserID) {
                    {
                        if held {
                            started.signal()
                            release.wait()
                        }
                        return Data("chat \(chatID)".utf8)
                    }
                }
            }
        }
        let held = render(1, by: 1, held: true)
        try await offThePool { started.wait() }
        let joined = render(1, by: 1)
        let waiting = (2...5).map { render($0, by: $0) }
        #expect(await eventually { renderer.waiting == 6 })
        let second = await #expect(throws: HTTPError.self) { try await render(7, by: 2).value }
        #expect(second?.status == 429 && second?.headers["Retry-After"] != nil && second?.message.contains("chat 2") == true,
                "\(String(describing: second))")
        release.signal()
        #expect(try await held.value == Data("chat 1".utf8))
        #expect(try await joined.value == Data("chat 1".utf8))
        for (offset, task) in waiting.enumerated() { #expect(try await task.value == Data("chat \(offset + 2)".utf8)) }
        #expect(renderer.renderings == 5, "the joined request rendered nothing of its own")
        #expect(try await render(6, by: 6).value == Data("chat 6".utf8), "room again once the queue has drained")
    }

    /// A renderer whose first drawing (chat 1, end user 1) is held until `release`, and a
    /// way to ask it for chat N's transcript of `size` messages, drawn into `drawn`.
    private final class HeldRenderer: @unchecked Sendable {
        let renderer = TranscriptRenderer()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var order: [Int] = []
        /// The chats drawn, in order.
        var drawn: [Int] { lock.withLock { order } }

        func render(_ chatID: Int, by endUserID: Int, size: Int = 1, held: Bool = false) -> Task<Data, any Error> {
            var chat = TranscriptTests.chat
            chat.id = chatID
            let version = TranscriptVersion(chat: chat, endUserName: nil, messages: .init(count: size, lastSequence: size, files: 0))
            return Task {
                try await self.renderer.render(chatID: chatID, version: version, endUserID: endUserID) {
                    { [self] in
                        if held {
                            started.signal()
                            release.wait()
                        }
                        lock.withLock { order.append(chatID) }
                        return Data("chat \(chatID)".utf8)
                    }
                }
            }
        }
    }

    /// Six end users asking in a loop once took every place of the queue, and every other
    /// end user's transcript was a 503 (issue 38, item 7). An end user who has had fewer
    /// rendered takes the place of a waiting one of an end user who has had more; end users
    /// served alike do not push each other out.
    @Test(.timeLimit(.minutes(1))) func aFewEndUsersAskingInALoopNeverKeepTheOthersOut() async throws {
        let queue = HeldRenderer()
        let held = queue.render(1, by: 1, held: true)
        try await offThePool { queue.started.wait() }
        var looping: [Task<Data, any Error>] = []
        for chat in 2...5 {
            // One at a time, so that they are admitted in this order: of end users served
            // alike, the one admitted last gives its place (tasks started together may be
            // admitted in any order, and the test then waited for the wrong one).
            looping.append(queue.render(chat, by: chat))
            #expect(await eventually { queue.renderer.waiting == chat })
        }
        // Each of the five has had one rendering since the renderer was idle; end user 6 none.
        let newcomer = queue.render(6, by: 6)
        let pushedOut = await #expect(throws: HTTPError.self) { try await looping[3].value }
        #expect(pushedOut?.status == 503, "the waiting rendering of an end user served more gives its place")
        let again = await #expect(throws: HTTPError.self) { try await queue.render(5, by: 5).value }
        #expect(again?.status == 503 && again?.headers["Retry-After"] == "5", "end users served alike do not push each other out")
        queue.release.signal()
        #expect(try await held.value == Data("chat 1".utf8))
        #expect(try await newcomer.value == Data("chat 6".utf8))
        for (offset, task) in looping.prefix(3).enumerated() { #expect(try await task.value == Data("chat \(offset + 2)".utf8)) }
    }

    /// Of the renderings waiting, the smallest is drawn first; one passed over
    /// ``TranscriptRenderer/maximumWaiting`` times is drawn next whatever its size.
    @Test(.timeLimit(.minutes(1))) func aSmallTranscriptIsDrawnBeforeALargeOne() async throws {
        let queue = HeldRenderer()
        let held = queue.render(1, by: 1, held: true)
        try await offThePool { queue.started.wait() }
        let large = queue.render(2, by: 2, size: 2_500)
        let small = queue.render(3, by: 3, size: 3)
        let medium = queue.render(4, by: 4, size: 40)
        #expect(await eventually { queue.renderer.prepared == 3 })
        queue.release.signal()
        for task in [held, large, small, medium] { _ = try await task.value }
        #expect(queue.drawn == [1, 3, 4, 2], "\(queue.drawn)")
    }

    /// An end user with a chat of 30 messages of 10,000 characters on a redacting queue,
    /// each of the kind the regular expressions took a second on.
    private func heavyChat(_ client: InProcessClient, _ identifier: String) async throws -> (token: String, chat: Int) {
        let token = try await client.signIn(identifier, at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        let text = String(repeating: "a", count: AttachmentLimits.textCharacters)
        for index in 1...30 {
            let reply = await client.call("POST", "/chats/\(chat.id)/messages", token: token,
                                          json: #"{"text": "\#(text)", "client_message_id": "h\#(index)"}"#)
            #expect(reply.status == 201)
        }
        return (token, chat.id)
    }

    /// Eight transcripts of two heavy chats at once, over HTTP, while other end users sign
    /// in one after another: each sign-in answers (within curl's 20 seconds; they took
    /// 29 s when renderings held the request threads), and each transcript is a PDF or a
    /// 429/503 saying when to come back. The transcripts themselves may take long when the
    /// whole suite shares two cores (a debug rendering of a heavy chat is seconds of CPU),
    /// so their requests wait up to 100 seconds.
    @Test(.timeLimit(.minutes(3)))
    func aTranscriptStormLeavesOtherUsersSignIns() async throws {
        let (sandbox, server) = try SandboxHTTP.serve(configuration: configuration())
        let client = InProcessClient(sandbox)
        let heavy = [try await heavyChat(client, "storm-ana"), try await heavyChat(client, "storm-bob")]
        let storm = (0..<8).map { index in
            Task {
                let (token, chat) = heavy[index % 2]
                return try await Curl.request("GET", "\(server.baseURL)/chats/\(chat)/transcript",
                                              headers: ["Authorization": "Bearer \(token)"], maxSeconds: 100)
            }
        }
        for index in 1...3 {
            let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
                .sign(["identifier": .string("storm-visitor-\(index)")], issuedAt: QueueMenuTests.mondayMorning, lifetime: 600)
            let signIn = try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                                body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8))
            #expect(signIn.status == 200, "sign-in \(index) answered during the storm: \(signIn.status) \(signIn.body)")
        }
        var rendered = 0
        for task in storm {
            let reply = try await task.value
            #expect([200, 429, 503].contains(reply.status), "\(reply.status) \(reply.body.prefix(200))")
            if reply.status == 200 { rendered += 1 } else { #expect(reply.headers["retry-after"] != nil) }
        }
        #expect(rendered >= 2, "each heavy chat's transcript came")
        await server.stop()
    }
}
