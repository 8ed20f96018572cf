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

    /// Issue 20 (a restart that a chat never notices): a restart with the same data loses
    /// nothing, chats included. A chat left in progress goes back to its queue and an agent
    /// takes it again, its script starting anew with `session.resumed` and the history.
    @Test func chatsLeftOpenByARestartAreTakenAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent, session)
              agent.send(string.format("resumed=%s history=%d", tostring(session.resumed), #session.messages))
              while agent.wait_for_message{ timeout = 600 } do end
            end
            """.write(to: folder.appendingPathComponent("greeter.lua"), atomically: true, encoding: .utf8)
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Gia", menus = { 1 }, script = "greeter.lua" } }
            """)
        let configuration = try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path)
        let data = folder.appendingPathComponent("data").path
        let first = try Sandbox(configuration: configuration, dataDirectory: data, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "restart-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        #expect(try await SandboxHTTP.agentMessages(server, chat.id, ana, count: 1).first?.text == "resumed=false history=0")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"client_message_id": "m1", "text": "still there?"}"#)
        await server.stop()

        let lines = LogLines()
        let second = try Sandbox(configuration: configuration, dataDirectory: data, clock: ManualClock(QueueMenuTests.mondayMorning),
                                 log: { lines.append($0) })
        let resumed = try await second.resumeChatsLeftOpen()
        #expect(resumed.chats.map(\.id) == [chat.id] && resumed.chats.first?.status == .queued, "back in its queue")
        #expect(lines.all.contains { $0.contains("resumed 1 chat(s) left open by the previous run (\(chat.id), back in their queues)") },
                "\(lines.all)")
        let restarted = try second.serve()
        let answers = try await SandboxHTTP.agentMessages(restarted, chat.id, ana, count: 2)
        #expect(answers.last?.text == "resumed=true history=2", "the greeting and the customer's message")
        let current = try SandboxHTTP.decode(try await SandboxHTTP.call(restarted, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self)
        #expect(current.isInProgress && current.agent?.name == "Gia")
        await restarted.stop()
    }

    /// An outage is not the customer's silence: a resumed chat's idle time counts from the
    /// restart.
    @Test func anOutageLongerThanTheIdleTimeoutDoesNotEndResumedChats() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("restart-idle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = try await LuaConfigurations.configuration("""
            chat_timeout_seconds = 60, menus = { { id = 1, name = "Help", channels = { chat = {} } } }
            """)
        let first = try Sandbox(configuration: configuration, dataDirectory: data, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "restart-idle")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        await server.stop()

        let anHourLater = ManualClock(QueueMenuTests.mondayMorning.addingTimeInterval(3_600))
        let second = try Sandbox(configuration: configuration, dataDirectory: data, clock: anHourLater, log: { _ in })
        #expect(try await second.resumeChatsLeftOpen().chats.map(\.id) == [chat.id])
        #expect(try await second.endIdleChats().isEmpty, "an hour of outage is not an hour of silence")
        anHourLater.advance(by: 61)
        _ = try await second.endIdleChats()   // or the sandbox's own chore did it
        let restarted = try second.serve()
        let ended = try SandboxHTTP.decode(try await SandboxHTTP.call(restarted, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self)
        #expect(ended.status == .ended && ended.endedBy == .timeout, "silent for 61 s since the restart")
        await restarted.stop()
    }

    /// A post-session virtual agent talking when the sandbox restarts talks again after it
    /// (the phase stays `ready`, and the end user can still answer).
    @Test func aPostSessionVirtualAgentTalksAgainAfterARestart() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("restart-ps-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try Sandbox(dataDirectory: data, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "restart-ps")
        // Devices (21) inherits Technical Support's post-session virtual agent, Quinn.
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 21}"#),
                                          as: ChatResponse.self)
        for step in ["end", "post_session/start", "post_session/ready"] {
            _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/\(step)", ana)
        }
        func quinnGreetings(_ server: some SandboxEndpoint, count: Int) async throws -> Int {
            var found = 0
            _ = try await eventually {
                found = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages", ana),
                                               as: [ChatMessage].self)
                    .filter { $0.sender.name == "Quinn" && $0.text?.hasPrefix("Hi, I'm Quinn") == true }.count
                return found >= count
            }
            return found
        }
        #expect(try await quinnGreetings(server, count: 1) == 1)
        await server.stop()

        let second = try Sandbox(dataDirectory: data, clock: ManualClock(QueueMenuTests.mondayMorning), log: { _ in })
        let resumed = try await second.resumeChatsLeftOpen()
        #expect(resumed.chats.isEmpty && resumed.postSessions.map(\.id) == [chat.id])
        let restarted = try second.serve()
        #expect(try await quinnGreetings(restarted, count: 2) == 2, "Quinn joins again")
        _ = try await SandboxHTTP.call(restarted, "POST", "/chats/\(chat.id)/messages", ana, #"{"client_message_id": "b", "text": "bye"}"#)
        _ = try await eventually {
            try SandboxHTTP.decode(try await SandboxHTTP.call(restarted, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self)
                .postSessionTransferStatus == .completed
        }
        let done = try SandboxHTTP.decode(try await SandboxHTTP.call(restarted, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self)
        #expect(done.postSessionTransferStatus == .completed, "the phase completes after the restart")
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
