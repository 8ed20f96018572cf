import CCAIKit
import CCAISandbox
import Foundation
import TestSupport
import Testing

@Suite struct EventSourceTests {
    /// Streams events 1...6 after the client's Last-Event-ID, dropping the connection after
    /// every third, and records the Last-Event-ID of each connection.
    actor Connections {
        private(set) var lastEventIDs: [String?] = []
        func record(_ id: String?) { lastEventIDs.append(id) }
    }

    private func serve(_ connections: Connections) throws -> HTTPServer {
        var router = HTTPRouter()
        router.add("GET", "/events", authentication: .none) { request in
            let last = request.headers["last-event-id"]
            await connections.record(last)
            let start = (last.flatMap(Int.init) ?? 0) + 1
            return .eventStream { stream in
                stream.sendRetry(milliseconds: 20)
                for n in start...min(start + 2, 6) {
                    stream.send(id: String(n), event: "tick", data: "event \(n)")
                }
                if start + 2 >= 6 { await stream.ended() }   // held open until the client leaves
            }
        }
        router.add("GET", "/missing", authentication: .none) { _ in throw HTTPError.notFound("no such stream") }
        return try HTTPServer(router: router)
    }

    @Test func reconnectsWithLastEventIDAndLosesNothing() async throws {
        let connections = Connections()
        let server = try serve(connections)
        let source = EventSource(client: HTTPClient(), request: HTTPClientRequest(url: "\(server.baseURL)/events"))
        var received: [String] = []
        for try await event in source.events() {
            #expect(event.event == "tick")
            received.append(event.data)
            if received.count == 6 { break }
        }
        #expect(received == (1...6).map { "event \($0)" })
        #expect(await connections.lastEventIDs == [nil, "3"])
        await server.stop()
    }

    @Test func resumesFromAGivenEventID() async throws {
        let connections = Connections()
        let server = try serve(connections)
        let source = EventSource(client: HTTPClient(), request: HTTPClientRequest(url: "\(server.baseURL)/events"),
                                 lastEventID: "4")
        var received: [String?] = []
        for try await event in source.events() {
            received.append(event.id)
            if received.count == 2 { break }
        }
        #expect(received == ["5", "6"])
        await server.stop()
    }

    @Test func anErrorStatusEndsTheSequence() async throws {
        let server = try serve(Connections())
        let source = EventSource(client: HTTPClient(), request: HTTPClientRequest(url: "\(server.baseURL)/missing"))
        do {
            for try await _ in source.events() {}
            Issue.record("expected an error")
        } catch let error as CCAIError {
            #expect(error.code == .notFound && error.status == 404)
        }
        await server.stop()
    }

    /// A platform that never ends its line (or its event) cannot grow the host's buffer:
    /// past the request's limit the stream ends with `too_large`, and is not reconnected
    /// to be sent the same again.
    @Test func anEndlessEventEndsTheStreamWithTooLarge() async throws {
        for opening in ["data: ", "data: 0123456789\n"] {
            let server = try RawHTTPServer { connection in
                connection.readRequestHead()
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                guard connection.number == 1 else {
                    connection.write("data: a later connection\n\n")
                    return
                }
                let chunk = String(repeating: opening == "data: " ? "x" : opening, count: opening == "data: " ? 64 << 10 : 4096)
                connection.write(opening)
                for _ in 0..<64 where connection.write(chunk) {}
            }
            var request = HTTPClientRequest(url: "\(server.baseURL)/events")
            request.maximumResponseBytes = 1 << 20
            let source = EventSource(client: HTTPClient(retryPolicy: .init(maximumRetries: 0)), request: request,
                                     reconnectDelay: 0.01)
            do {
                for try await event in source.events() {
                    Issue.record("got \(event.data.prefix(40)) after \(opening.debugDescription)")
                    break
                }
                Issue.record("expected too_large")
            } catch let error as NetworkError {
                #expect(error.code == .tooLarge && error.message.contains("\(1 << 20) bytes"), "\(error)")
            }
            server.stop()
        }
    }

    /// A server that sends faster than the consumer takes: past the flow's high water the
    /// connection is no longer read (the events wait in the server's socket), and once the
    /// consumer catches up it is read again, losing nothing (issue 38, item 2).
    @Test(.timeLimit(.minutes(1))) func aConsumerThatFallsBehindStopsTheConnectionBeingRead() async throws {
        let payload = String(repeating: "x", count: 8 << 10)
        let server = try RawHTTPServer { connection in
            connection.readRequestHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\nretry: 60000\n\n")
            for n in 1...2_000 where connection.write("id: \(n)\ndata: \(n) \(payload)\n\n") {}
        }
        defer { server.stop() }
        let events = EventSource(client: HTTPClient(), request: HTTPClientRequest(url: "\(server.baseURL)/events")).events()
        var iterator = events.makeAsyncIterator()
        #expect(try await iterator.next()?.data.hasPrefix("1 ") == true)
        #expect(await eventually { events.flow.isPaused }, "16 MB sent, the consumer holding one event")
        #expect(events.flow.pendingBytes <= EventSource.flowHighWater + 64 << 10, "\(events.flow.pendingBytes)")
        var numbers: [Int] = []
        while numbers.count < 1_999, let event = try await iterator.next() {
            numbers.append(Int(event.data.prefix { $0 != " " }) ?? 0)
        }
        #expect(numbers == Array(2...2_000), "read again once taken, in order, nothing lost")
        #expect(!events.flow.isPaused && events.flow.pendingBytes == 0)
    }

    /// A server whose `/forever` sends one event, then holds the stream open until the
    /// client leaves or the server stops.
    private func foreverServer() throws -> HTTPServer {
        var router = HTTPRouter()
        router.add("GET", "/forever", authentication: .none) { _ in
            .eventStream { stream in
                stream.send(id: "1", data: "first")
                await stream.ended()
            }
        }
        return try HTTPServer(router: router)
    }

    @Test func stoppingTheServerEndsOpenStreams() async throws {
        let server = try foreverServer()
        let client = HTTPClient(retryPolicy: .init(maximumRetries: 0))
        let chunks = Chunks()
        let firstChunk = Latch()
        let reading = Task {
            try await client.stream(HTTPClientRequest(url: "\(server.baseURL)/forever", timeout: 0)) { _, chunk in
                chunks.add(chunk)
                Task { await firstChunk.open() }
                return true
            }
        }
        await firstChunk.wait()
        await server.stop(grace: 1)
        let response = try await reading.value
        #expect(response.status == 200)
        #expect(chunks.text.contains("data: first"))
    }

    /// libcurl's transport opens a stream with no task waiting for it: a server that ends it
    /// tells its answer, a cancelled one `CancellationError`, each once; a transport that
    /// only performs (the protocol's default) tells what `perform` returned.
    @Test(.timeLimit(.minutes(1))) func anOpenedStreamTellsItsEndOnce() async throws {
        let server = try foreverServer()
        let client = HTTPClient(retryPolicy: .init(maximumRetries: 0))
        let request = HTTPClientRequest(url: "\(server.baseURL)/forever", timeout: 0)

        let cancelled = StreamOutcomes()
        let firstChunk = Latch()
        let stream = client.open(request, onChunk: { _, _ in
            Task { await firstChunk.open() }
            return true
        }, completion: cancelled.completion)
        await firstChunk.wait()
        stream.cancel()
        let outcome = await cancelled.first()
        #expect(throws: CancellationError.self) { try outcome.get() }

        let ended = StreamOutcomes()
        let chunks = Chunks()
        let reading = Latch()
        let endedStream = client.open(request, onChunk: { _, chunk in
            chunks.add(chunk)
            Task { await reading.open() }
            return true
        }, completion: ended.completion)
        await reading.wait()
        await server.stop(grace: 1)
        #expect(try await ended.first().get().status == 200)
        #expect(chunks.text.contains("data: first"))
        stream.cancel()
        endedStream.cancel()
        #expect(cancelled.all.count == 1 && ended.all.count == 1, "each told once, a late cancel tells nothing")

        struct Answering: HTTPTransport {
            func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
                HTTPClientResponse(status: 204, headers: [:])
            }
        }
        let answered = StreamOutcomes()
        _ = Answering().open(request, onChunk: { _, _ in true }, completion: answered.completion)
        #expect(try await answered.first().get().status == 204)
    }
}

/// Chunks received on the transport thread.
final class Chunks: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    func add(_ chunk: Data) { lock.withLock { data.append(chunk) } }
}
