import CHTTPShim
import Foundation
import Timekeeping

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
    /// Where the bytes go: a connection of the HTTP server, or a reader in the same
    /// process (the router transport).
    private enum Destination {
        case connection(OpaquePointer)
        case reader(InProcessReader)
    }

    /// A reader in the same process: each write is handed to `deliver` at once (nothing
    /// waits unsent); it stops taking them once `deliver` says false or it is closed.
    /// Package access: the router transport (CCAIBridge) reads a stream through it.
    package final class InProcessReader: @unchecked Sendable {
        private let lock = NSLock()
        private var deliver: ((Data) -> Bool)?
        private var onClose: (() -> Void)?
        /// Settled once the reader stops taking writes.
        let stopped = Settlement<Void>()

        /// A reader handing each write to `deliver` (false: stop) and calling `onClose` once,
        /// when it stops taking writes.
        package init(deliver: @escaping (Data) -> Bool, onClose: @escaping () -> Void) {
            self.deliver = deliver
            self.onClose = onClose
        }

        var isOpen: Bool { lock.withLock { deliver != nil } }

        /// Hands `data` over (under the lock: once ``close()`` has returned, nothing more is).
        func write(_ data: Data) -> Bool {
            let closed: (() -> Void)? = lock.withLock {
                guard let deliver else { return nil }
                if deliver(data) { return nil }
                self.deliver = nil
                defer { onClose = nil }
                return onClose
            }
            if let closed {
                closed()
                stopped.settle(())
            }
            return isOpen
        }

        /// Stops taking writes; `onClose` runs if it has not yet.
        package func close() {
            let closed: (() -> Void)? = lock.withLock {
                deliver = nil
                defer { onClose = nil }
                return onClose
            }
            closed?()
            stopped.settle(())
        }
    }

    private let destination: Destination

    init(_ stream: OpaquePointer) {
        destination = .connection(stream)
    }

    /// A stream written to `reader` in the same process.
    package init(reader: InProcessReader) {
        destination = .reader(reader)
    }

    deinit {
        switch destination {
        case .connection(let stream):
            chttp_stream_close(stream)
            chttp_stream_release(stream)
        case .reader(let reader):
            reader.close()
        }
    }

    /// Whether the client is still listening.
    public var isOpen: Bool {
        switch destination {
        case .connection(let stream): return chttp_stream_is_open(stream) != 0
        case .reader(let reader): return reader.isOpen
        }
    }

    /// Bytes written and not yet sent to the client (none for a reader in the process).
    public var pendingBytes: Int {
        switch destination {
        case .connection(let stream): return chttp_stream_pending(stream)
        case .reader: return 0
        }
    }

    /// Waits until at most `bytes` wait unsent (the client read) or the stream has ended;
    /// false when `patience` seconds of `clock` pass first. A reader in the process takes
    /// each write as it comes: nothing waits unsent.
    package func drained(toAtMost bytes: Int, patience: TimeInterval, on clock: any TimeSource) async -> Bool {
        switch destination {
        case .connection(let stream):
            if chttp_stream_pending(stream) <= bytes { return true }
            return await DrainWatch.wait(for: stream, toAtMost: bytes, patience: patience, on: clock)
        case .reader: return true
        }
    }

    /// Waits until the stream has ended: the client left, or the server stopped (for a
    /// reader in the process: it stopped reading or was closed).
    package func ended() async {
        switch destination {
        case .connection(let stream): await DrainWatch.ended(stream)
        case .reader(let reader): await reader.stopped.value()
        }
    }

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
    public func close() {
        switch destination {
        case .connection(let stream): chttp_stream_close(stream)
        case .reader(let reader): reader.close()
        }
    }

    private func write(_ text: String) -> Bool {
        switch destination {
        case .connection(let stream):
            var text = text
            return text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chttp_stream_write(stream, $0.baseAddress, $0.count) != 0 }
            }
        case .reader(let reader):
            return reader.write(Data(text.utf8))
        }
    }
}
