import CCAIWire
import Foundation

/// One Server-Sent Event.
public struct ServerSentEvent: Equatable, Sendable {
    public var id: String?
    /// The event type (`"message"` when the stream names none).
    public var event: String
    public var data: String

    public init(id: String? = nil, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// Parses an event stream (the WHATWG `text/event-stream` format) from chunks that may
/// split lines and events anywhere, in time linear in the bytes fed: each byte is scanned
/// once, and consumed lines are dropped from the buffer once they are at least half of it.
/// A line or an event (its data lines together) longer than `maximumEventBytes` is an
/// error: a stream that never ends its line or its event cannot grow the buffer for ever.
///
/// ```swift
/// var parser = ServerSentEventParser(maximumEventBytes: 1 << 20)
/// let events = try parser.feed(Data("id: 1\ndata: hello\n\n".utf8))   // one event, "hello"
/// ```
public struct ServerSentEventParser: Sendable {
    /// A line or an event went past ``maximumEventBytes``.
    public struct TooLarge: Error, Equatable, Sendable {
        public var limit: Int

        public init(limit: Int) { self.limit = limit }
    }

    /// The most bytes of one line, and of one event's data lines together.
    public let maximumEventBytes: Int
    private var buffer: [UInt8] = []
    /// Where the unfinished line starts in `buffer`, and where scanning for its end resumes.
    private var lineStart = 0
    private var scanned = 0
    private var data: [String] = []
    /// The bytes of `data`, with a line break for each line.
    private var dataBytes = 0
    private var event = ""
    private var id: String?
    /// The id of the last event (sent back as `Last-Event-ID` on reconnection).
    public private(set) var lastEventID: String?
    /// The reconnection delay the server asked for, in milliseconds.
    public private(set) var retry: Int?

    /// A parser for events of up to `maximumEventBytes` (default: the limit of the
    /// platform's `/events`, 1 MiB).
    public init(maximumEventBytes: Int = Endpoints.events.maximumResponseBytes) {
        self.maximumEventBytes = maximumEventBytes
    }

    /// The events completed by `chunk`; throws ``TooLarge`` when a line or an event is over
    /// the limit (the parser is then of no further use: drop the connection).
    public mutating func feed(_ chunk: Data) throws(TooLarge) -> [ServerSentEvent] {
        buffer.append(contentsOf: chunk)
        var events: [ServerSentEvent] = []
        while scanned < buffer.count {
            let byte = buffer[scanned]
            guard byte == 0x0A || byte == 0x0D else {
                scanned += 1
                continue
            }
            // A CR that ends the buffer may be half of CRLF: wait for the next chunk.
            if byte == 0x0D, scanned + 1 == buffer.count { break }
            if scanned - lineStart > maximumEventBytes { throw TooLarge(limit: maximumEventBytes) }
            let line = String(decoding: buffer[lineStart..<scanned], as: UTF8.self)
            if let event = try process(line) { events.append(event) }
            scanned += (byte == 0x0D && buffer[scanned + 1] == 0x0A) ? 2 : 1
            lineStart = scanned
        }
        if scanned - lineStart > maximumEventBytes { throw TooLarge(limit: maximumEventBytes) }
        compact()
        return events
    }

    /// Drops the consumed lines once they are at least half of the buffer (amortised: each
    /// byte is moved at most once more than it is scanned). A buffer all consumed is freed:
    /// a stream's parser lives as long as its connection, mostly between events.
    private mutating func compact() {
        guard lineStart > 0, lineStart * 2 >= buffer.count else { return }
        if lineStart == buffer.count {
            buffer = []
            scanned = 0
            lineStart = 0
            return
        }
        buffer.removeSubrange(0..<lineStart)
        scanned -= lineStart
        lineStart = 0
    }

    private mutating func process(_ line: String) throws(TooLarge) -> ServerSentEvent? {
        if line.isEmpty {
            defer {
                data = []
                dataBytes = 0
                event = ""
            }
            guard !data.isEmpty else { return nil }
            lastEventID = id ?? lastEventID
            return ServerSentEvent(id: id, event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }
        let field: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            var rest = line[line.index(after: colon)...]
            if rest.hasPrefix(" ") { rest = rest.dropFirst() }
            value = rest
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "data":
            dataBytes += value.utf8.count + 1
            guard dataBytes <= maximumEventBytes + 1 else { throw TooLarge(limit: maximumEventBytes) }
            data.append(String(value))
        case "event": event = String(value)
        case "id" where !value.contains("\0"): id = String(value)
        case "retry": if let milliseconds = Int(value) { retry = milliseconds }
        default: break
        }
        return nil
    }
}

/// A reconnecting Server-Sent Events client: on a dropped connection it waits (the
/// server's `retry`, else `reconnectDelay`, within ``minimumRetrySeconds`` to
/// ``maximumRetrySeconds``; doubled for each connection in a row that brought no event,
/// up to ``maximumRetrySeconds``) and reconnects with `Last-Event-ID`, so that the
/// server can resume after the last event received. An event (or an error answer) larger
/// than the request's `maximumResponseBytes` ends the sequence with `too_large`.
///
/// ```swift
/// for try await event in EventSource(client: http, request: HTTPClientRequest(url: url)).events() {
///     print(event.event, event.data)
/// }
/// ```
public struct EventSource: Sendable {
    /// The longest wait a server's `retry:` can ask for: a hostile or broken platform
    /// cannot park the stream for longer.
    public static let maximumRetrySeconds: TimeInterval = 60
    /// The shortest wait between two connections: a platform that drops every connection
    /// at once (or asks for `retry: 0`) gets at most ten a second, then fewer.
    public static let minimumRetrySeconds: TimeInterval = 0.1

    public let client: HTTPClient
    public var request: HTTPClientRequest
    public var reconnectDelay: TimeInterval
    /// Where to resume from (the id of the last event already handled).
    public var lastEventID: String?
    /// Told `true` when a connection starts receiving, `false` when an open one drops.
    public var onConnectionChange: (@Sendable (Bool) -> Void)?

    public init(client: HTTPClient, request: HTTPClientRequest, reconnectDelay: TimeInterval = 1, lastEventID: String? = nil,
                onConnectionChange: (@Sendable (Bool) -> Void)? = nil) {
        self.client = client
        self.request = request
        self.reconnectDelay = reconnectDelay
        self.lastEventID = lastEventID
        self.onConnectionChange = onConnectionChange
    }

    /// The bytes of events handed on and not yet taken past which the connection is no
    /// longer read (``StreamFlow``), and at which it is read again.
    public static let flowHighWater = 2 << 20, flowLowWater = 512 << 10

    /// The events, across reconnections, until the consumer stops iterating (or the
    /// server answers with an error status, which ends the sequence with a ``CCAIError``, or the
    /// transport fails for good or an event is over the limit: a ``NetworkError``). While
    /// the consumer has more than ``flowHighWater`` bytes of events not yet taken, the
    /// connection is not read: a server sending faster than the consumer takes waits.
    public func events() -> ServerSentEventStream {
        let flow = StreamFlow(highWater: Self.flowHighWater, lowWater: Self.flowLowWater)
        let events = AsyncThrowingStream<ServerSentEvent, Error> { continuation in
            let task = Task {
                do {
                    try await read(flow: flow) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return ServerSentEventStream(flow: flow, events: events)
    }

    /// Reads the events in the calling task, across reconnections, handing each to `handle`
    /// as it is parsed, on the transport's thread. Each event handed on counts in `flow`
    /// until its taker says it is consumed, and the connection is not read while the taker
    /// is behind. Returns when the task is cancelled; throws what ends ``events()``.
    private func read(flow: StreamFlow, handle: @escaping @Sendable (ServerSentEvent) -> Void) async throws {
        var reconnection = Reconnection(lastEventID: lastEventID, delay: reconnectDelay)
        while !Task.isCancelled {
            let connection = StreamSlot()
            let end = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionEnd, Never>) in
                    connection.hold(connect(after: reconnection.lastEventID, flow: flow, handle: handle) {
                        continuation.resume(returning: $0)
                    })
                }
            } onCancel: {
                connection.cancel()
            }
            switch end {
            case .cancelled: return
            case .failed(let error): throw error
            case .dropped(let record):
                try? await client.clock.sleep(for: reconnection.wait(after: record))
            }
        }
    }

    /// How one connection ended.
    enum ConnectionEnd: Sendable {
        /// It was cancelled.
        case cancelled
        /// It dropped or the server ended it: the source connects again after the wait that
        /// ``Reconnection/wait(after:)`` says.
        case dropped(ConnectionRecord)
        /// The source cannot go on: the server refused it (a ``CCAIError``), the transport
        /// failed for good, or an event was over the limit (a ``NetworkError``).
        case failed(any Error)
    }

    /// What a dropped connection says about the next one.
    struct ConnectionRecord: Sendable {
        /// The id of the last event it brought, if any had one.
        var lastEventID: String?
        /// The reconnection delay the server asked for, in milliseconds.
        var retry: Int?
        /// Whether it brought an event.
        var delivered: Bool
    }

    /// What goes from one connection of a source to the next: where to resume, the delay
    /// the server asked for, and the connections in a row that brought no event.
    struct Reconnection: Sendable {
        var lastEventID: String?
        var delay: TimeInterval
        private var fruitless = 0

        init(lastEventID: String?, delay: TimeInterval) {
            self.lastEventID = lastEventID
            self.delay = delay
        }

        /// Takes in what `record`'s connection brought; the wait before the next one.
        mutating func wait(after record: ConnectionRecord) -> TimeInterval {
            lastEventID = record.lastEventID ?? lastEventID
            if let retry = record.retry { delay = min(max(0, Double(retry) / 1000), EventSource.maximumRetrySeconds) }
            fruitless = record.delivered ? 0 : fruitless + 1
            let doublings = Double(min(max(fruitless - 1, 0), 10))
            return min(max(delay, EventSource.minimumRetrySeconds) * pow(2, doublings), EventSource.maximumRetrySeconds)
        }
    }

    /// Opens one connection, resuming after `lastID`, with no task waiting for it: each event
    /// is handed to `handle` as it is parsed, on the transport's thread (counted in `flow`
    /// as ``read(flow:handle:)`` says), and `ended` is told once how the connection ended.
    func connect(after lastID: String?, flow: StreamFlow, handle: @escaping @Sendable (ServerSentEvent) -> Void,
                 ended: @escaping @Sendable (ConnectionEnd) -> Void) -> any OpenStream {
        var request = self.request
        request.timeout = 0
        request.flow = flow
        request.headers["Accept"] = "text/event-stream"
        if let lastID { request.headers["Last-Event-ID"] = lastID }
        let state = ParserBox(maximumEventBytes: request.maximumResponseBytes)
        let onConnectionChange = self.onConnectionChange
        let operation = "GET " + request.url
        return client.open(request, onChunk: { status, chunk in
            if (200..<300).contains(status), state.markConnected() { onConnectionChange?(true) }
            guard let events = state.feed(chunk) else { return false }
            for event in events {
                flow.produced(event.byteCount)
                handle(event)
            }
            return true
        }, completion: { result in
            ended(Self.end(of: result, state: state, operation: operation, onConnectionChange: onConnectionChange))
        })
    }

    /// How a connection ended, from what its transfer returned or threw and what its parser saw.
    private static func end(of result: Result<HTTPClientResponse, Error>, state: ParserBox, operation: String,
                            onConnectionChange: (@Sendable (Bool) -> Void)?) -> ConnectionEnd {
        switch result {
        case .success(let response) where state.failure == nil:
            guard (200..<300).contains(response.status) else {
                return .failed(CCAIError(status: response.status, body: response.body))
            }
        case .failure(is CancellationError):
            return .cancelled
        case .failure(let error as TransportError) where !error.isRetryable && state.failure == nil:
            return .failed(NetworkError(error, operation: operation))
        default:
            if let tooLarge = state.failure {
                if state.markDisconnected() { onConnectionChange?(false) }
                return .failed(NetworkError.responseTooLarge(operation: operation + " (an event)", limit: tooLarge.limit))
            }
        }
        // A dropped connection, or one the server ended.
        if state.markDisconnected() { onConnectionChange?(false) }
        let parser = state.parser
        return .dropped(ConnectionRecord(lastEventID: parser.lastEventID, retry: parser.retry, delivered: state.delivered))
    }
}

/// The connection a task waits for, cancelled with the task: at once, or as soon as it is held.
private final class StreamSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var stream: (any OpenStream)?
    private var cancelled = false

    func hold(_ stream: any OpenStream) {
        let cancelNow = lock.withLock { () -> Bool in
            self.stream = stream
            return cancelled
        }
        if cancelNow { stream.cancel() }
    }

    func cancel() {
        let stream = lock.withLock { () -> (any OpenStream)? in
            cancelled = true
            return self.stream
        }
        stream?.cancel()
    }
}

/// The events of an ``EventSource``: taking one tells the source's ``StreamFlow``, so that
/// the connection is read only as fast as they are taken.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    /// The source's back-pressure (what is handed on and not yet taken).
    public let flow: StreamFlow
    let events: AsyncThrowingStream<ServerSentEvent, Error>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<ServerSentEvent, Error>.Iterator
        let flow: StreamFlow

        public mutating func next() async throws -> ServerSentEvent? {
            let event = try await base.next()
            if let event { flow.consumed(event.byteCount) }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: events.makeAsyncIterator(), flow: flow)
    }
}

extension ServerSentEvent {
    /// What it takes to hold: its data, type and id.
    var byteCount: Int { data.utf8.count + event.utf8.count + (id?.utf8.count ?? 0) }
}

/// The parser of one connection, fed on the transport thread.
private final class ParserBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _parser: ServerSentEventParser
    private var connected = false
    private var _delivered = false
    private var _failure: ServerSentEventParser.TooLarge?

    init(maximumEventBytes: Int) {
        _parser = ServerSentEventParser(maximumEventBytes: maximumEventBytes)
    }

    var parser: ServerSentEventParser { lock.withLock { _parser } }
    /// Whether the connection brought at least one event.
    var delivered: Bool { lock.withLock { _delivered } }
    /// Why the parser gave up on the connection, if it did.
    var failure: ServerSentEventParser.TooLarge? { lock.withLock { _failure } }

    /// True the first time: the connection is now receiving.
    func markConnected() -> Bool { lock.withLock { defer { connected = true }; return !connected } }

    /// True when the connection had been receiving.
    func markDisconnected() -> Bool { lock.withLock { defer { connected = false }; return connected } }

    /// The events `chunk` completes; nil when the stream went past the parser's limit.
    func feed(_ chunk: Data) -> [ServerSentEvent]? {
        lock.withLock { () -> [ServerSentEvent]? in
            do throws(ServerSentEventParser.TooLarge) {
                let events = try _parser.feed(chunk)
                _delivered = _delivered || !events.isEmpty
                return events
            } catch {
                _failure = error
                return nil
            }
        }
    }
}
