import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Chats reach exactly one agent, once, however they arrive.
@Suite struct AgentDeskTests {
    /// Many customers start and end chats at once: a chat that an agent picks up while it
    /// is being queued is not taken twice (the second script would greet again and, as an
    /// orphan, hold its state until its wait timed out: the sandbox's growth under load).
    @Test(.timeLimit(.minutes(1))) func aChatOfferedTwiceIsTakenOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("desk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent)
              agent.send("hello")
              while true do
                local message = agent.wait_for_message{ timeout = 600 }
                if message == nil or message.text == "bye" then agent.end_session() return end
              end
            end
            """.write(to: folder.appendingPathComponent("greeter.lua"), atomically: true, encoding: .utf8)
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Gia", menus = { 1 }, script = "greeter.lua" } }
            """)
        let configuration = try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path)
        let (_, server) = try SandboxHTTP.serve(configuration: configuration)
        // Eight customers at a time, one chat after another: chats end while others are being queued.
        let greetings = try await withThrowingTaskGroup(of: [Int].self) { group in
            for lane in 0..<8 {
                group.addTask {
                    var counts: [Int] = []
                    for round in 0..<16 {
                        let token = try await SandboxHTTP.token(server, "desk-\(lane)-\(round)")
                        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", token, #"{"menu_id": 1}"#),
                                                          as: ChatResponse.self)
                        _ = try await SandboxHTTP.agentMessages(server, chat.id, token, count: 1)
                        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", token,
                                                       #"{"client_message_id": "bye", "text": "bye"}"#)
                        try await SandboxHTTP.waitUntilEnded(server, chat.id, token)
                        counts.append(try await SandboxHTTP.agentMessages(server, chat.id, token, count: 1).count)
                    }
                    return counts
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(greetings == Array(repeating: 1, count: 128), "each chat greeted once: \(greetings)")
        await server.stop()
    }

    /// A restart with the same data loses nothing, chats included: those left open (their
    /// agents went with the old process) end with a message saying why, instead of waiting
    /// for an agent forever.
    @Test func chatsLeftOpenByARestartEndWithAMessage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = try await LuaConfigurations.configuration("menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }")
        let first = try Sandbox(configuration: configuration, dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "restart-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        await server.stop()

        let lines = LogLines()
        let second = try Sandbox(configuration: configuration, dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning),
                                 log: { lines.append($0) })
        let ended = try await second.endChatsLeftOpen()
        #expect(ended.map(\.id) == [chat.id] && ended.first?.status == .ended && ended.first?.endedBy == "restart")
        #expect(lines.all.contains { $0.contains("ended 1 chat(s) left open") }, "\(lines.all)")
        let restarted = try second.serve()
        let messages = try SandboxHTTP.decode(try await SandboxHTTP.call(restarted, "GET", "/chats/\(chat.id)/messages", ana),
                                              as: [ChatMessage].self)
        #expect(messages.last?.sender.type == "system" && messages.last?.text?.contains("restarted") == true)
        #expect(try await second.endChatsLeftOpen().isEmpty, "once")
        await restarted.stop()
    }
}

/// Log lines a sandbox wrote, for assertions.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
