import CCAISandbox
import Foundation
import Testing

@Suite struct HTTPServerTests {
    struct Echo: Codable, Equatable {
        var menuId: Int
        var note: String?

        enum CodingKeys: String, CodingKey {
            case menuId = "menu_id"
            case note
        }
    }

    /// Holds each request until `together` are in progress at once, then lets them all
    /// go: a server that handled one request at a time would never get there.
    actor Overlap {
        let together: Int
        private(set) var current = 0
        private(set) var most = 0
        private var held: [CheckedContinuation<Void, Never>] = []

        init(together: Int = 2) { self.together = together }

        func enter() async {
            current += 1
            most = max(most, current)
            guard most < together else {
                held.forEach { $0.resume() }
                held = []
                return
            }
            await withCheckedContinuation { held.append($0) }
        }

        func leave() { current -= 1 }
    }

    /// A value a route hands over once, awaited by the test (no polling, no sleeps).
    actor Handover {
        private var value: Int?
        private var waiting: CheckedContinuation<Int, Never>?
        func give(_ value: Int) {
            if let waiting { waiting.resume(returning: value) } else { self.value = value }
        }
        func take() async -> Int {
            if let value { return value }
            return await withCheckedContinuation { waiting = $0 }
        }
    }

    private func makeServer(maximumBodyBytes: Int = 1 << 20, overlap: Overlap = Overlap(),
                            limits: HTTPServer.Limits = HTTPServer.Limits()) throws -> HTTPServer {
        var router = HTTPRouter()
        router.add("GET", "/hello", authentication: .none) { request in
            try .json(["greeting": "hi \(request.query["name"] ?? "there")", "agent": request.headers["user-agent"] ?? ""])
        }
        router.add("POST", "/echo/:id", maximumBodyBytes: maximumBodyBytes, authentication: .none) { request in
            var echo = try request.decode(Echo.self)
            echo.note = "id \(request.parameters["id"]!)"
            return try .json(echo, status: 201)
        }
        router.add("GET", "/slow", authentication: .none) { _ in
            await overlap.enter()
            await overlap.leave()
            return .noContent
        }
        router.add("GET", "/secret", authentication: .none) { request in
            guard request.bearerToken == "t0ken" else { throw HTTPError.unauthenticated("a valid auth token is required") }
            return try .json(["ok": true])
        }
        router.add("GET", "/broken", authentication: .none) { _ in throw CocoaError(.fileNoSuchFile) }
        router.add("POST", "/upload", maximumBodyBytes: maximumBodyBytes) { request in
            try .json(["bytes": request.body.count], status: 201)
        }
        return try HTTPServer(router: router, address: "127.0.0.1", port: 0, limits: limits)
    }

    @Test func answersRoutesWithJSON() async throws {
        let server = try makeServer()
        #expect(server.port > 0)
        let hello = try await Curl.request("GET", "\(server.baseURL)/hello?name=Ana%20B")
        #expect(hello.status == 200)
        #expect(hello.body.contains(#""greeting":"hi Ana B""#))
        let echo = try await Curl.request("POST", "\(server.baseURL)/echo/7", body: Data(#"{"menu_id": 12}"#.utf8),
                                    headers: ["Content-Type": "application/json"])
        #expect(echo.status == 201)
        #expect(echo.body == #"{"menu_id":12,"note":"id 7"}"#)
        await server.stop()
    }

    @Test func errorsAreJSONWithAStatus() async throws {
        let server = try makeServer()
        let missing = try await Curl.request("GET", "\(server.baseURL)/nowhere")
        #expect(missing.status == 404)
        #expect(missing.body == #"{"error":{"code":"not_found","message":"no endpoint GET \/nowhere"}}"#
            || missing.body == #"{"error":{"code":"not_found","message":"no endpoint GET /nowhere"}}"#)
        #expect(try await Curl.request("DELETE", "\(server.baseURL)/hello").status == 405)
        let unauthenticated = try await Curl.request("GET", "\(server.baseURL)/secret")
        #expect(unauthenticated.status == 401)
        #expect(unauthenticated.body.contains(#""code":"unauthenticated""#))
        #expect(try await Curl.request("GET", "\(server.baseURL)/secret", headers: ["Authorization": "Bearer t0ken"]).status == 200)
        #expect(try await Curl.request("GET", "\(server.baseURL)/broken").status == 500)
        await server.stop()
    }

    /// A path parameter that starts with a combining mark (an emoji modifier, as the API's
    /// fuzzer sent) is still its own segment: split by characters, `/🏻` was one, and the
    /// request a 404 "no endpoint".
    @Test func aParameterStartingWithACombiningMarkIsASegment() async throws {
        var router = HTTPRouter()
        router.add("PUT", "/uploads/:id", authentication: .none) { request in try .json(["id": request.parameters["id"] ?? ""]) }
        for id in ["\u{1F3FB}", "\u{301}x", "abc"] {
            let response = await router.respond(to: HTTPRequest(method: "PUT", path: "/uploads/" + id))
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self).contains(id), "\(id)")
        }
    }

    /// The token of `Authorization: Bearer TOKEN`: the scheme in any case, blanks around
    /// the token left out; another scheme, no token or a byte other than a space after the
    /// scheme is none.
    @Test(arguments: [
        ("Bearer t0ken", "t0ken"), ("bearer  t0ken\t", "t0ken"), ("BEARER t0ken", "t0ken"), ("Bearer é", "é"),
        ("Bearer ", nil), ("Bearer \t ", nil), ("Bearer\0t0ken", nil), ("Bearert0ken", nil), ("Basic t0ken", nil), ("", nil),
    ] as [(String, String?)])
    func bearerTokensAreReadFromTheHeader(header: String, token: String?) {
        var request = HTTPRequest(method: "GET", path: "/")
        request.headers["authorization"] = header
        #expect(request.bearerToken == token)
    }

    @Test func malformedBodiesAreA400ThatNamesTheField() async throws {
        let server = try makeServer()
        let wrongType = try await Curl.request("POST", "\(server.baseURL)/echo/1", body: Data(#"{"menu_id": "twelve"}"#.utf8))
        #expect(wrongType.status == 400)
        #expect(wrongType.body.contains("the field 'menu_id' must be an integer"))
        let missing = try await Curl.request("POST", "\(server.baseURL)/echo/1", body: Data("{}".utf8))
        #expect(missing.body.contains("the field 'menu_id' is required"))
        let notJSON = try await Curl.request("POST", "\(server.baseURL)/echo/1", body: Data("{oops".utf8))
        #expect(notJSON.status == 400)
        #expect(notJSON.body.contains("not valid JSON"))
        let empty = try await Curl.request("POST", "\(server.baseURL)/echo/1")
        #expect(empty.body.contains("needs a JSON body"))
        await server.stop()
    }

    @Test func bodiesOverTheLimitAreA413() async throws {
        let server = try makeServer(maximumBodyBytes: 1_000)
        let reply = try await Curl.request("POST", "\(server.baseURL)/echo/1", body: Data(repeating: UInt8(ascii: "x"), count: 5_000))
        #expect(reply.status == 413)
        #expect(reply.body.contains(#""code":"too_large""#))
        #expect(try await Curl.request("GET", "\(server.baseURL)/hello").status == 200)
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func servesRequestsConcurrently() async throws {
        let overlap = Overlap(together: 4)
        let server = try makeServer(overlap: overlap)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await Curl.request("GET", "\(server.baseURL)/slow").status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 204, count: 8))
        #expect(await overlap.most >= 4, "four requests were in progress at once")
        await server.stop()
    }

    @Test func stopsGracefullyAndFreesThePort() async throws {
        let server = try makeServer()
        let port = server.port
        await server.stop()
        // The freed port binds again at once (another test asking for port 0 cannot be
        // told it apart, so the proof is the new server answering, not a refused connection).
        var successor = HTTPRouter()
        successor.add("GET", "/hello", authentication: .none) { _ in try .json(["successor": true]) }
        let again = try HTTPServer(router: successor, address: "127.0.0.1", port: port)
        #expect(try await Curl.request("GET", "http://127.0.0.1:\(port)/hello").body.contains(#""successor":true"#))
        await again.stop()
        #expect(throws: HTTPError.self) { try HTTPServer(router: HTTPRouter(), address: "not-an-ip", port: 0) }
        let taken = try makeServer()
        #expect(throws: HTTPError.self) { try HTTPServer(router: HTTPRouter(), address: "127.0.0.1", port: taken.port) }
        await taken.stop()
    }

    /// A gate that requests wait at until the test opens it.
    actor Gate {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func pass() async {
            if !isOpen { await withCheckedContinuation { waiting.append($0) } }
        }
        func open() {
            isOpen = true
            waiting.forEach { $0.resume() }
            waiting = []
        }
    }

    /// While a stop waits for a request in progress, a new connection is closed unanswered
    /// (the listening socket is kept until the daemon is down: libmicrohttpd aborts the
    /// process when its socket is pulled from an epoll daemon's running workers), and the
    /// request in progress still gets its answer.
    @Test(.timeLimit(.minutes(1))) func whileStoppingNewConnectionsAreClosedAndRequestsInProgressAnswered() async throws {
        let entered = Handover()
        let gate = Gate()
        var router = HTTPRouter()
        router.add("GET", "/held", authentication: .none) { _ in
            await entered.give(1)
            await gate.pass()
            return try .json(["held": true])
        }
        router.add("GET", "/forever", authentication: .none) { _ in
            .eventStream { stream in
                stream.send(data: "open")
                await stream.ended()
            }
        }
        let server = try HTTPServer(router: router)
        let held = Task { try await Curl.request("GET", "\(server.baseURL)/held") }
        _ = await entered.take()
        let stream = try RawConnection(port: server.port)
        stream.send("GET /forever HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try await stream.read(for: 10) { $0.contains("data: open") }.text.contains("data: open"))
        let stopping = Task { await server.stop(grace: 30) }
        #expect(try await stream.read(for: 10).closed, "a stop ends the open streams once it refuses connections")
        let late = try RawConnection(port: server.port)
        late.send("GET /forever HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let refused = try await late.read(for: 10)
        #expect(refused.closed && refused.text.isEmpty, "\(refused.text)")
        await gate.open()
        let answer = try await held.value
        #expect(answer.status == 200 && answer.body.contains(#""held":true"#))
        await stopping.value
    }

    @Test func largeBodiesAreSpooledAndTheSpoolIsBounded() async throws {
        var limits = HTTPServer.Limits()
        limits.spoolAfterBytes = 1_024
        limits.spoolBytes = 64 << 10
        let server = try makeServer(limits: limits)
        let token = ["Authorization": "Bearer t0ken"]
        let uploaded = try await Curl.request("POST", "\(server.baseURL)/upload", body: Data(count: 16_000), headers: token)
        #expect(uploaded.status == 201 && uploaded.body.contains(#""bytes":16000"#), "a spooled body arrives whole")
        let refused = try await Curl.request("POST", "\(server.baseURL)/upload", body: Data(count: 100 << 10), headers: token)
        #expect(refused.status == 503 && refused.body.contains("unavailable"), "\(refused.status): \(refused.body)")
        #expect(try await Curl.request("GET", "\(server.baseURL)/hello").status == 200, "the budget is given back")
        await server.stop()
    }

    @Test func aStreamWhoseClientDoesNotReadIsDropped() async throws {
        var limits = HTTPServer.Limits()
        limits.streamBytes = 64 << 10
        let handover = Handover()
        var router = HTTPRouter()
        router.add("GET", "/flood", authentication: .none) { _ in
            .eventStream { stream in
                let event = String(repeating: "e", count: 1_000)
                var sent = 0
                while sent < 200_000, stream.send(data: event) { sent += 1 }
                await handover.give(sent)
            }
        }
        let server = try HTTPServer(router: router, limits: limits)
        let socket = try RawConnection(port: server.port)
        socket.send("GET /flood HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let sent = await handover.take()
        #expect(sent < 200_000, "the writer learns the client is gone instead of buffering without end")
        socket.close()
        await server.stop()
    }
}
