import CHTTPShim
import Foundation

/// A Server-Sent Events response in progress: the route writes events as they happen;
/// the client reads them as they arrive.
///
/// ```swift
/// router.add("GET", "/events") { request in
///     .eventStream { stream in
///         stream.send(id: "1", event: "state_changed", data: #"{"state":"queued"}"#)
///     }
/// }
/// ```
public final class HTTPEventStream: @unchecked Sendable {
    private let stream: OpaquePointer

    init(_ stream: OpaquePointer) {
        self.stream = stream
    }

    deinit {
        chttp_stream_close(stream)
        chttp_stream_release(stream)
    }

    /// Whether the client is still listening.
    public var isOpen: Bool { chttp_stream_is_open(stream) != 0 }

    /// Bytes written and not yet sent to the client.
    public var pendingBytes: Int { chttp_stream_pending(stream) }

    /// Sends one event; false when the client is gone.
    @discardableResult
    public func send(id: String? = nil, event: String? = nil, data: String) -> Bool {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if let event { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return write(text + "\n")
    }

    /// Tells the client how long to wait before reconnecting.
    @discardableResult
    public func sendRetry(milliseconds: Int) -> Bool { write("retry: \(milliseconds)\n\n") }

    /// A comment line, to keep idle connections alive.
    @discardableResult
    public func sendComment(_ text: String) -> Bool { write(": \(text)\n\n") }

    /// Ends the stream after what was sent.
    public func close() { chttp_stream_close(stream) }

    private func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chttp_stream_write(stream, $0.baseAddress, $0.count) != 0 }
        }
    }
}
