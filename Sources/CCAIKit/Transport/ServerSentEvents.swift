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
/// split lines and events anywhere.
public struct ServerSentEventParser: Sendable {
    private var buffer: [UInt8] = []
    private var data: [String] = []
    private var event = ""
    private var id: String?
    /// The id of the last event (sent back as `Last-Event-ID` on reconnection).
    public private(set) var lastEventID: String?
    /// The reconnection delay the server asked for, in milliseconds.
    public private(set) var retry: Int?

    public init() {}

    /// The events completed by `chunk`.
    public mutating func feed(_ chunk: Data) -> [ServerSentEvent] {
        buffer.append(contentsOf: chunk)
        var events: [ServerSentEvent] = []
        var start = 0
        var index = 0
        while index < buffer.count {
            let byte = buffer[index]
            if byte == 0x0A || byte == 0x0D {
                // A CR that ends the buffer may be half of CRLF: wait for the next chunk.
                if byte == 0x0D, index + 1 == buffer.count { break }
                let line = String(decoding: buffer[start..<index], as: UTF8.self)
                if let event = process(line) { events.append(event) }
                index += (byte == 0x0D && buffer[index + 1] == 0x0A) ? 2 : 1
                start = index
            } else {
                index += 1
            }
        }
        buffer.removeFirst(start)
        return events
    }

    private mutating func process(_ line: String) -> ServerSentEvent? {
        if line.isEmpty {
            defer {
                data = []
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
        case "data": data.append(String(value))
        case "event": event = String(value)
        case "id" where !value.contains("\0"): id = String(value)
        case "retry": if let milliseconds = Int(value) { retry = milliseconds }
        default: break
        }
        return nil
    }
}

/// A reconnecting Server-Sent Events client: on a dropped connection it waits (the
/// server's `retry`, within 0 to ``maximumRetrySeconds``, else `reconnectDelay`) and
/// reconnects with `Last-Event-ID`, so that the server can resume after the last event
/// received.
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

    /// The events, across reconnections, until the consumer stops iterating (or the
    /// server answers with an error status, which ends the sequence with a ``CCAIError``).
    public func events() -> AsyncThrowingStream<ServerSentEvent, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var lastID = lastEventID
                var delay = reconnectDelay
                while !Task.isCancelled {
                    var request = self.request
                    request.timeout = 0
                    request.headers["Accept"] = "text/event-stream"
                    if let lastID { request.headers["Last-Event-ID"] = lastID }
                    let state = ParserBox()
                    let onConnectionChange = self.onConnectionChange
                    do {
                        let response = try await client.stream(request) { status, chunk in
                            if (200..<300).contains(status), state.markConnected() { onConnectionChange?(true) }
                            for event in state.feed(chunk) { continuation.yield(event) }
                            return true
                        }
                        if !(200..<300).contains(response.status) {
                            continuation.finish(throwing: CCAIError(status: response.status, body: response.body))
                            return
                        }
                    } catch is CancellationError {
                        break
                    } catch let error as TransportError where !error.isRetryable {
                        continuation.finish(throwing: CCAIError(error))
                        return
                    } catch {
                        // A dropped connection: reconnect below.
                    }
                    if state.markDisconnected() { onConnectionChange?(false) }
                    let parser = state.parser
                    lastID = parser.lastEventID ?? lastID
                    if let retry = parser.retry { delay = min(max(0, Double(retry) / 1000), Self.maximumRetrySeconds) }
                    try? await client.clock.sleep(for: delay)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The parser of one connection, fed on the transport thread.
private final class ParserBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _parser = ServerSentEventParser()

    private var connected = false

    var parser: ServerSentEventParser { lock.withLock { _parser } }

    /// True the first time: the connection is now receiving.
    func markConnected() -> Bool { lock.withLock { defer { connected = true }; return !connected } }

    /// True when the connection had been receiving.
    func markDisconnected() -> Bool { lock.withLock { defer { connected = false }; return connected } }

    func feed(_ chunk: Data) -> [ServerSentEvent] { lock.withLock { _parser.feed(chunk) } }
}
