import CCAIKit
import CCAISandbox
import Foundation
import Timekeeping

/// The SDK's transport to a sandbox in the same process: each request goes to the
/// router's admission and handlers (``HTTPRouter/respond(to:)``, what the HTTP server
/// runs), and an event stream is handed to the SDK as it is written, without a socket.
/// So a run's end users cost no file descriptors, however many there are (over loopback
/// HTTP, each open event stream holds two), and nothing is parsed twice.
///
/// A request's timeout runs on `clock`: the run's, so that in virtual time a request
/// times out after simulated seconds, as everything else does, however busy the machine.
///
/// ```swift
/// let http = HTTPClient(transport: RouterTransport(router: sandbox.router))
/// let sdk = CCAI(http: http)
/// ```
public struct RouterTransport: HTTPTransport {
    public let router: HTTPRouter
    public let clock: any TimeSource

    public init(router: HTTPRouter, clock: any TimeSource = SystemClock()) {
        self.router = router
        self.clock = clock
    }

    public func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
        try Task.checkCancellation()
        let routed = try Self.request(request)
        let response = try await Self.withTimeout(request.timeout, on: clock) { await router.respond(to: routed) }
        switch try Self.answer(response, to: request, streaming: onChunk != nil) {
        case .whole(let answer):
            guard let onChunk else { return answer }
            return Self.hand(answer, to: onChunk)
        case .stream(let write, let head):
            guard let onChunk else { throw TransportError.failed("unreachable: a stream without a reader") }
            await Self.stream(write, status: head.status, to: onChunk)
            try Task.checkCancellation()
            return head
        }
    }

    /// Starts `request` as ``perform(_:onChunk:)`` does: a short task routes it, and an
    /// event stream is then read as its writer writes, with no task of the client's waiting.
    public func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
                     completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream {
        let stream = RoutedStream(completion: completion)
        stream.routing(Task { [router, clock] in
            do {
                try Task.checkCancellation()
                let routed = try Self.request(request)
                let response = try await Self.withTimeout(request.timeout, on: clock) { await router.respond(to: routed) }
                switch try Self.answer(response, to: request, streaming: true) {
                case .whole(let answer):
                    stream.finish(.success(Self.hand(answer, to: onChunk)))
                case .stream(let write, let head):
                    let reader = HTTPEventStream.InProcessReader(deliver: { onChunk(head.status, $0) },
                                                                 onClose: { stream.finish(.success(head)) })
                    stream.reading(reader)
                    Task {
                        await write(HTTPEventStream(reader: reader))
                        reader.close()
                    }
                }
            } catch {
                stream.finish(.failure(error))
            }
            stream.routed()
        })
        return stream
    }

    /// What the router answered, as the SDK is handed it: whole, or an event stream to read
    /// (only when the caller reads one), with its status and headers.
    private enum Answer {
        case whole(HTTPClientResponse)
        case stream(@Sendable (HTTPEventStream) async -> Void, head: HTTPClientResponse)
    }

    /// A whole answer to a request read as a stream: a 2xx body is handed to `onChunk` as
    /// one piece, and the answer returned without it; any other comes back whole.
    private static func hand(_ answer: HTTPClientResponse, to onChunk: (Int, Data) -> Bool) -> HTTPClientResponse {
        guard (200..<300).contains(answer.status) else { return answer }
        if !answer.body.isEmpty { _ = onChunk(answer.status, answer.body) }
        return HTTPClientResponse(status: answer.status, headers: answer.headers)
    }

    private static func answer(_ response: HTTPResponse, to request: HTTPClientRequest, streaming: Bool) throws -> Answer {
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name.lowercased()] = value }
        if let write = response.stream {
            guard streaming else {
                throw TransportError.failed("\(request.method) \(request.url) answered with an event stream")
            }
            return .stream(write, head: HTTPClientResponse(status: response.status, headers: headers))
        }
        guard response.body.count <= max(0, request.maximumResponseBytes) else {
            throw TransportError.tooLarge(limit: request.maximumResponseBytes)
        }
        return .whole(HTTPClientResponse(status: response.status, headers: headers, body: response.body))
    }

    /// The router's request for the SDK's: the path and query decoded, header names
    /// lowercased.
    static func request(_ request: HTTPClientRequest) throws -> HTTPRequest {
        guard let components = URLComponents(string: request.url), ["http", "https"].contains(components.scheme),
            components.host?.isEmpty == false, !components.path.isEmpty
        else {
            throw TransportError.failed("'\(request.url)' is not an http or https URL")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        return HTTPRequest(method: request.method, path: components.path, query: query, headers: headers,
                           body: request.body ?? Data())
    }

    /// Runs the stream's writer until it ends, the reader stops it, or the caller's task
    /// is cancelled (then the reader is closed at once; the writer ends at its next write
    /// or keep-alive, as it does when a connection drops).
    static func stream(_ write: @escaping @Sendable (HTTPEventStream) async -> Void, status: Int,
                       to onChunk: @escaping (Int, Data) -> Bool) async {
        let ended = Settlement<Void>()
        let reader = HTTPEventStream.InProcessReader(deliver: { onChunk(status, $0) }, onClose: { ended.settle(()) })
        Task {
            await write(HTTPEventStream(reader: reader))
            reader.close()
        }
        await withTaskCancellationHandler {
            await ended.value()
        } onCancel: {
            reader.close()
        }
    }

    /// Fails with ``TransportError/timeout(_:)`` when `body` takes longer than `seconds` of
    /// `clock` (0 or less: no limit), and with `CancellationError` when the caller is cancelled,
    /// at once in both cases: a handler that does not stop when cancelled is left to end
    /// on its own, as it would be when a client's connection drops.
    static func withTimeout<Value: Sendable>(_ seconds: TimeInterval, on clock: any TimeSource,
                                             _ body: @escaping @Sendable () async -> Value) async throws -> Value
    {
        let outcome = Settlement<Result<Value, Error>>()
        let work = Task {
            let value = await body()
            outcome.settle(.success(value))
        }
        let timer = Task {
            guard seconds > 0, seconds.isFinite else { return }
            try await clock.sleep(for: seconds)
            outcome.settle(.failure(TransportError.timeout(seconds)))
            work.cancel()
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value().get()
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
            work.cancel()
        }
    }
}

/// A stream the router answered (``RouterTransport/open(_:onChunk:completion:)``): told its
/// outcome once, when its writer ends, its reader stops it, or it is cancelled.
private final class RoutedStream: OpenStream, @unchecked Sendable {
    private let lock = NSLock()
    private var completion: (@Sendable (Result<HTTPClientResponse, Error>) -> Void)?
    /// The task routing the request, until it has: a finished task keeps the memory its
    /// calls used for as long as it is held, and a stream is open for as long as its SDK
    /// instance lives.
    private var task: Task<Void, Never>?
    private var isRouted = false
    private var reader: HTTPEventStream.InProcessReader?
    private var cancelled = false

    init(completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) {
        self.completion = completion
    }

    /// The task routing the request, cancelled with the stream.
    func routing(_ task: Task<Void, Never>) {
        let cancelNow = lock.withLock { () -> Bool in
            if !isRouted { self.task = task }
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// The routing task is done: it is released.
    func routed() {
        lock.withLock {
            isRouted = true
            task = nil
        }
    }

    /// The reader of the stream's writer, closed with the stream.
    func reading(_ reader: HTTPEventStream.InProcessReader) {
        let closeNow = lock.withLock { () -> Bool in
            self.reader = reader
            return cancelled
        }
        if closeNow { reader.close() }
    }

    func finish(_ result: Result<HTTPClientResponse, Error>) {
        let told = lock.withLock { () -> (@Sendable (Result<HTTPClientResponse, Error>) -> Void)? in
            defer {
                completion = nil
                task = nil
                reader = nil
            }
            return completion
        }
        told?(result)
    }

    func cancel() {
        let (task, reader) = lock.withLock { () -> (Task<Void, Never>?, HTTPEventStream.InProcessReader?) in
            cancelled = true
            return (self.task, self.reader)
        }
        // Told first: closing the reader would tell the stream's end as its outcome.
        finish(.failure(CancellationError()))
        task?.cancel()
        // The writer ends at its next write or keep-alive, as when a connection drops.
        reader?.close()
    }
}
