import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The sandbox's real-time stream (`GET /events`) read with the SDK's EventSource, end to
/// end over loopback HTTP: a stream on a real connection, dropped when the server stops and
/// resumed when it listens again on the same port.
@Suite struct PlatformEventsTests {
    private func authenticate(_ server: HTTPServer, identifier: String) async throws -> (token: String, id: Int) {
        let ccai = CCAI()
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", cacheAuthToken: false))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(["identifier": .string(identifier)],
                                                                             issuedAt: Date(), lifetime: 600)
        let token = try await ccai.authService!.authenticate(jwt)
        return (token, ccai.endUserService!.endUser!.id!)
    }

    private func source(_ server: HTTPServer, _ token: String, after: String? = nil,
                        onConnectionChange: (@Sendable (Bool) -> Void)? = nil) -> EventSource {
        EventSource(client: HTTPClient(), request: HTTPClientRequest(url: "\(server.baseURL)/events",
                                                                     headers: ["Authorization": "Bearer \(token)"]),
                    reconnectDelay: 0.05, lastEventID: after, onConnectionChange: onConnectionChange)
    }

    @Test func publishedEventsArriveLiveAndInOrder() async throws {
        let sandbox = try Sandbox()
        let server = try sandbox.serve()
        let (token, userID) = try await authenticate(server, identifier: "events-1")
        let (_, otherID) = try await authenticate(server, identifier: "events-2")
        let connected = Latch()
        let publisher = Task {
            await connected.wait()
            for n in 1...5 {
                try await sandbox.publish(endUserID: otherID, event: .coldTransfer, data: ["n": .integer(Int64(n))])
                try await sandbox.publish(endUserID: userID, event: .typingEvent, data: ["n": .integer(Int64(n))])
            }
        }
        var received: [ServerSentEvent] = []
        let live = source(server, token) { isConnected in if isConnected { Task { await connected.open() } } }
        for try await event in live.events() {
            received.append(event)
            if received.count == 5 { break }
        }
        try await publisher.value
        #expect(received.map(\.event) == Array(repeating: PlatformEventName.typingEvent.rawValue, count: 5), "only the user's own events")
        #expect(received.map(\.data) == (1...5).map { #"{"n":\#($0)}"# })
        #expect(received.compactMap(\.id).compactMap(Int.init) == received.compactMap(\.id).compactMap(Int.init).sorted())
        await server.stop()
    }

    @Test func aReconnectionReplaysWhatWasMissedAndNothingTwice() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sandbox = try Sandbox(dataDirectory: folder)
        let server = try sandbox.serve()
        let (token, userID) = try await authenticate(server, identifier: "events-3")
        var ids: [Int64] = []
        for n in 1...6 { ids.append(try await sandbox.publish(endUserID: userID, event: .typingEvent, data: .integer(Int64(n)))) }
        var firstHalf: [ServerSentEvent] = []
        for try await event in source(server, token).events() {
            firstHalf.append(event)
            if firstHalf.count == 3 { break }
        }
        await server.stop()

        let restarted = try Sandbox(dataDirectory: folder)
        let second = try restarted.serve()
        var rest: [String] = []
        for try await event in source(second, token, after: firstHalf.last?.id).events() {
            rest.append(event.data)
            if rest.count == 3 { break }
        }
        #expect(firstHalf.map(\.data) == ["1", "2", "3"])
        #expect(rest == ["4", "5", "6"], "after a restart, from the last id on")
        #expect(firstHalf.last?.id == String(ids[2]))
        await second.stop()
    }

    @Test(.timeLimit(.minutes(1))) func theSDKSurvivesADroppedStreamAndSaysSo() async throws {
        let sandbox = try Sandbox()
        let port = try restartablePort()   // listened on again below
        let server = try sandbox.serve(port: port)
        let delegate = SigningDelegate(identifier: "events-drop")
        let ccai = try makeLoopbackSDK(port: port, delegate: delegate, cache: false)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        var ticks = service.events(named: PlatformEventName.typingEvent.rawValue).makeAsyncIterator()
        var connectivity = service.networkConnectivityChanged().makeAsyncIterator()
        var states = service.stateChanged.makeAsyncIterator()
        let userID = try #require(try await ccai.endUserService!.fetch().id)
        func publish(_ numbers: ClosedRange<Int>) async throws {
            for n in numbers { try await sandbox.publish(endUserID: userID, event: .typingEvent, data: .integer(Int64(n))) }
        }
        func read(_ count: Int) async -> [Int64] {
            var numbers: [Int64] = []
            while numbers.count < count, let tick = await ticks.next() { numbers.append(Int64(tick.doubleValue ?? -1)) }
            return numbers
        }

        try await publish(1...3)
        #expect(await read(3) == [1, 2, 3])
        await server.stop()
        #expect(await connectivity.next() == false, "the loss is reported")
        try await publish(4...6)
        let restarted = try sandbox.serve(port: port)
        #expect(await connectivity.next() == true, "so is the recovery")
        var seen: [ChatProviderState] = []
        while seen.last != .connected || seen.count < 3, let state = await states.next() { seen.append(state) }
        #expect(seen.suffix(3) == [.disconnected, .connecting, .connected], "the provider's states: \(seen)")
        try await publish(7...7)
        #expect(await read(4) == [4, 5, 6, 7], "what was published meanwhile arrives once, in order")
        await restarted.stop()
    }

    @Test(.timeLimit(.minutes(1))) func messagesWrittenOfflineGoOutOnceAndInOrder() async throws {
        let sandbox = try Sandbox()
        let port = try restartablePort()   // listened on again below
        let server = try sandbox.serve(port: port)
        let delegate = SigningDelegate(identifier: "offline-writer")
        let clock = ManualClock()
        let ccai = try makeLoopbackSDK(port: port, delegate: delegate, cache: false, clock: clock)
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 8))
        await server.stop()
        let first = Task { try await service.sendMessage(.text(content: "one")) }
        await clock.waitForTimers { $0.contains(0.25) }   // the outbox waits for the platform
        let second = Task { try await service.sendMessage(.text(content: "two")) }
        let restarted = try sandbox.serve(port: port)
        clock.advance(by: 0.25)
        let (sentFirst, sentSecond) = (try await first.value, try await second.value)
        #expect(sentFirst[0].sequence < sentSecond[0].sequence, "in the order written")
        let mine = try await service.getMessages().filter { $0.sender.type == "end_user" }.compactMap(\.text)
        #expect(mine == ["one", "two"], "each stored once")
        await restarted.stop()
    }

    @Test func theStreamNeedsATokenAndAnEventID() async throws {
        let sandbox = try Sandbox()
        let server = try sandbox.serve()
        let client = HTTPClient(retryPolicy: .init(maximumRetries: 0))
        let anonymous = try await client.send(HTTPClientRequest(url: "\(server.baseURL)/events"))
        #expect(anonymous.status == 401)
        let (token, _) = try await authenticate(server, identifier: "events-4")
        let bad = try await client.send(HTTPClientRequest(url: "\(server.baseURL)/events",
                                                          headers: ["Authorization": "Bearer \(token)", "Last-Event-ID": "abc"]))
        #expect(bad.status == 400)
        await server.stop()
    }
}
