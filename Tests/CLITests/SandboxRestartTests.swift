import CCAIKit
import CCAIWire
import Foundation
import TestSupport
import Testing

/// Issue 20, a restart that a customer never notices: a served sandbox with `--data` that
/// crashes and comes back keeps its chats in progress, and its agents take them again.
@Suite struct SandboxRestartTests {
    typealias Server = SandboxCommandTests.Server

    @Test(.timeLimit(.minutes(3))) func aCustomerWritingThroughTwoCrashesKeepsTheChatAndEveryMessageOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent, session)
              agent.send(session.resumed and "Back, with " .. #session.messages .. " messages" or "Hi")
              while true do
                local message = agent.wait_for_message{ timeout = 600 }
                if not message then return end
                agent.send("echo: " .. message.text)
              end
            end
            """.write(to: folder.appendingPathComponent("echo.lua"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("sandbox.lua").path
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Eve", menus = { 1 }, script = "echo.lua" } } }
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let port = try restartablePort()
        let arguments = ["--config", config, "--data", folder.appendingPathComponent("data").path]
        let listen = "127.0.0.1:\(port)"
        var server = try await Server.start(arguments, listen: listen)
        defer { server.terminate() }   // a failure below leaves no server running

        let delegate = SigningDelegate(identifier: "crash-ana")
        let ccai = try makeLoopbackSDK(port: port, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        let answers = Answers(service.chatEvents())
        let chat = try await service.start(request: ChatRequest(menuId: 1))
        try await answers.wait(for: "Hi")
        for number in 1...9 {
            let text = "m\(number)"
            if number == 4 || number == 7 {
                // The customer writes while the sandbox is down; the SDK retries through the outage.
                try await server.crash()
                async let sent = service.sendMessage(.text(content: text))
                server = try await Server.start(arguments, listen: listen)
                _ = try await sent
            } else {
                _ = try await service.sendMessage(.text(content: text))
            }
            try await answers.wait(for: "echo: \(text)")
        }

        let messages = try await service.getMessages()
        #expect(messages.filter { $0.sender.type == .endUser }.compactMap(\.text) == (1...9).map { "m\($0)" },
                "every message stored once, in order")
        #expect(messages.filter { $0.text?.hasPrefix("Back, with") == true }.count == 2, "an agent took the chat again after each crash")
        let current = try #require(try await service.getLastChatInProgress())
        #expect(current.id == chat.id && current.agent?.name == "Eve", "the chat is still in progress, with an agent")
        #expect(try await server.stop() == 0)
        withExtendedLifetime(delegate) {}
    }
}

/// The agents' messages of a chat as they arrive, read until the one expected.
private final class Answers: @unchecked Sendable {
    private var iterator: AsyncStream<ChatServiceEvent>.Iterator

    init(_ stream: AsyncStream<ChatServiceEvent>) {
        iterator = stream.makeAsyncIterator()
    }

    /// Reads events until an agent's message says `text` (the test's time limit bounds it).
    func wait(for text: String) async throws {
        while let event = await iterator.next() {
            if case .messagesReceived(let messages) = event, messages.contains(where: { $0.sender.type == .agent && $0.text == text }) {
                return
            }
        }
        Issue.record("the events ended before '\(text)'")
    }
}
