import CCAIWire
import CCAIKit
import CCAISandbox
import Foundation
import TestSupport
import Testing
import Timekeeping

@Suite struct HTTPClientTests {
    /// Counts calls, for routes that fail a number of times first.
    actor Calls {
        private(set) var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    /// `/slow` opens `slowEntered`, then waits for `slowReleased`.
    private func makeServer(calls: Calls = Calls(), slowEntered: Latch = Latch(), slowReleased: Latch = Latch()) throws
        -> HTTPServer
    {
        var router = HTTPRouter()
        router.add("GET", "/json", authentication: .none) { request in
            try .json(["agent": request.headers["x-agent"] ?? "", "query": request.query["q"] ?? ""])
        }
        router.add("POST", "/echo", authentication: .none) { request in HTTPResponse(status: 201, headers: ["X-Echo": "yes"], body: request.body) }
        router.add("PUT", "/echo", authentication: .none) { request in HTTPResponse(status: 200, body: request.body) }
        router.add("DELETE", "/thing", authentication: .none) { _ in .noContent }
        router.add("GET", "/slow", authentication: .none) { _ in
            await slowEntered.open()
            await slowReleased.wait()
            return .noContent
        }
        router.add("GET", "/flaky", authentication: .none) { _ in
            await calls.next() <= 2 ? HTTPError(status: 503, code: .unavailable, message: "busy").response
                : try .json(["ok": true])
        }
        router.add("POST", "/busy", authentication: .none) { _ in
            await calls.next() == 1 ? HTTPError.limitExceeded("slow down", retryAfter: 0.01).response : .noContent
        }
        router.add("POST", "/flaky", authentication: .none) { _ in
            _ = await calls.next()
            return HTTPError(status: 503, code: .unavailable, message: "busy").response
        }
        return try HTTPServer(router: router)
    }

    private let client = HTTPClient(retryPolicy: .init(maximumRetries: 3, initialBackoff: 0.01))

    /// The timeout of requests in tests about which requests are retried, not how fast:
    /// while the whole suite starts, a loaded machine can hold a round trip past the
    /// default 30 s.
    private static let patience: TimeInterval = 300

    @Test func sendsRequestsAndReadsResponses() async throws {
        let server = try makeServer()
        let get = try await client.send(HTTPClientRequest(url: "\(server.baseURL)/json?q=a%20b", headers: ["X-Agent": "ccai"]))
        #expect(get.status == 200)
        #expect(String(decoding: get.body, as: UTF8.self) == #"{"agent":"ccai","query":"a b"}"#)
        #expect(get.headers["content-type"] == "application/json")
        let binary = Data([0, 1, 2, 0xFF, 0])
        let post = try await client.send(HTTPClientRequest(method: "POST", url: "\(server.baseURL)/echo", body: binary))
        #expect(post.status == 201 && post.body == binary && post.headers["x-echo"] == "yes")
        let put = try await client.send(HTTPClientRequest(method: "PUT", url: "\(server.baseURL)/echo", body: Data("x".utf8)))
        #expect(put.status == 200 && put.body == Data("x".utf8))
        let delete = try await client.send(HTTPClientRequest(method: "DELETE", url: "\(server.baseURL)/thing"))
        #expect(delete.status == 204)
        let missing = try await client.send(HTTPClientRequest(url: "\(server.baseURL)/missing"))
        #expect(missing.status == 404)
        await server.stop()
    }

    /// A 429 was refused before it was processed: any request is sent again after the
    /// server's Retry-After (which the client caps).
    @Test func tooManyRequestsAreRetriedAfterTheServersDelay() async throws {
        let calls = Calls()
        let server = try makeServer(calls: calls)
        let response = try await client.send(HTTPClientRequest(method: "POST", url: "\(server.baseURL)/busy", body: Data("x".utf8),
                                                               timeout: Self.patience))
        let count = await calls.count
        #expect(response.status == 204 && count == 2)
        #expect(RetryPolicy.standard.maximumRetryAfter <= 10)
        await server.stop()
    }

    /// A hostile platform cannot fill the host's memory: an answer is read up to its
    /// endpoint's limit (`Endpoint.maximumResponseBytes`), and the transfer is aborted past
    /// it, whether the length was announced (refused before the body) or not (cut off).
    @Test func answersPastTheirEndpointsLimitAreAborted() async throws {
        let written = Calls()
        var router = HTTPRouter()
        router.add("GET", "/company", authentication: .none) { _ in
            .eventStream { stream in
                let chunk = String(repeating: "x", count: 64 << 10)
                var bytes = 0
                while stream.isOpen, bytes < 64 << 20 {
                    // Holds at most 1 MiB unsent: waits for the client to read (or leave) first.
                    guard await stream.drained(toAtMost: 1 << 20, patience: 60, on: SystemClock()) else { break }
                    stream.sendComment(chunk)
                    bytes += chunk.count
                    if bytes % (1 << 20) == 0 { _ = await written.next() }
                }
            }
        }
        router.add("GET", "/end_user", authentication: .none) { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(count: 9 << 20))
        }
        let server = try HTTPServer(router: router)
        let ccai = CCAI(http: HTTPClient(retryPolicy: .init(maximumRetries: 0)))
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", cacheAuthToken: false))
        ccai.authService!.updateAuthToken("t")
        let limit = Endpoints.company.maximumResponseBytes
        #expect(limit == 8 << 20)
        do {
            _ = try await ccai.companyService!.get()
            Issue.record("expected too_large")
        } catch let error as NetworkError {
            #expect(error.code == .tooLarge, "\(error)")
            #expect(error.message.contains("GET /company") && error.message.contains("\(limit) bytes"), "\(error.message)")
        }
        do {
            _ = try await ccai.endUserService!.fetch()
            Issue.record("expected too_large")
        } catch let error as NetworkError {
            #expect(error == .responseTooLarge(operation: "GET /end_user", limit: Endpoints.endUser.maximumResponseBytes), "\(error)")
        }
        await server.stop()
        #expect(await written.count < 32, "the transfer stopped near the limit, not at the server's 64 MiB")
    }

    @Test func timesOut() async throws {
        let released = Latch()
        let server = try makeServer(slowReleased: released)
        let noRetry = HTTPClient(retryPolicy: .init(maximumRetries: 0))
        await #expect(throws: TransportError.timeout(0.2)) {
            try await noRetry.send(HTTPClientRequest(url: "\(server.baseURL)/slow", timeout: 0.2))
        }
        await released.open()
        await server.stop()
    }

    @Test func retriesIdempotentRequestsOnly() async throws {
        let getCalls = Calls()
        let server = try makeServer(calls: getCalls)
        let get = try await client.send(HTTPClientRequest(url: "\(server.baseURL)/flaky", timeout: Self.patience))
        #expect(get.status == 200)
        #expect(await getCalls.count == 3)

        let postCalls = Calls()
        let postServer = try makeServer(calls: postCalls)
        let post = try await client.send(HTTPClientRequest(method: "POST", url: "\(postServer.baseURL)/flaky", timeout: Self.patience))
        #expect(post.status == 503)
        #expect(await postCalls.count == 1)
        await server.stop()
        await postServer.stop()
    }

    @Test func anUnreachableServerIsUnavailableAfterRetries() async throws {
        let (socket, port) = try boundLoopbackSocket()   // bound, not listening: refused
        defer { close(socket) }
        let url = "http://127.0.0.1:\(port)/json"
        await #expect {
            try await client.send(HTTPClientRequest(url: url, timeout: 2))
        } throws: { error in
            guard let error = error as? TransportError, case .unavailable = error else { return false }
            return error.isRetryable
        }
    }

    @Test func cancellationStopsTheRequest() async throws {
        let (entered, released) = (Latch(), Latch())
        let server = try makeServer(slowEntered: entered, slowReleased: released)
        // A timeout far beyond the cancel: a loaded machine must not turn the test into a timeout.
        let task = Task { try await client.send(HTTPClientRequest(url: "\(server.baseURL)/slow", timeout: 300)) }
        await entered.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        await released.open()
        await server.stop()
    }

    @Test func manyRequestsAtOnce() async throws {
        let server = try makeServer()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<100 {
                group.addTask { try await client.send(HTTPClientRequest(url: "\(server.baseURL)/json?q=\(n)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 100))
        await server.stop()
    }

    @Test func malformedURLsFailWithoutRetrying() async throws {
        await #expect {
            try await client.send(HTTPClientRequest(url: "gopher://example/"))
        } throws: { error in
            guard let error = error as? TransportError, case .failed = error else { return false }
            return true
        }
    }
}
