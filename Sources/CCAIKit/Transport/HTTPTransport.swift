import Foundation

/// How ``HTTPClient`` reaches a server: one attempt at a request, no retries (the client
/// retries). Two implementations: ``CurlTransport`` (libcurl, for platforms and served
/// sandboxes) and CCAIBridge's router transport, which hands requests to a sandbox in
/// the same process without a socket.
///
/// ```swift
/// let client = HTTPClient(transport: CurlTransport())
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` once. With `onChunk`, a 2xx body is a stream handed on piece by piece
    /// as it arrives (return false to stop it), and the call returns when the stream ends;
    /// any other answer comes back whole. Throws ``TransportError`` or `CancellationError`.
    func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse

    /// Starts `request` as a stream, as ``perform(_:onChunk:)`` does, with no task waiting
    /// for it: `completion` is told what `perform` would return or throw, once, on whatever
    /// thread ends the stream (possibly before this returns); cancelling the stream ends it
    /// with `CancellationError`. An SDK instance's event stream is open as long as the
    /// instance lives, one for each VU of a run, so what it holds while open is what it costs.
    /// The default runs `perform` in a task; libcurl's transport and the in-process router
    /// hold nothing but the transfer.
    func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
              completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream
}

/// A stream started by ``HTTPTransport/open(_:onChunk:completion:)``.
public protocol OpenStream: Sendable {
    /// Ends the stream: its completion is told `CancellationError`, unless it has already
    /// been told its outcome. Calling it again does nothing. The default implementation
    /// cancels the task running `perform`, so its completion is told what `perform` ends
    /// with once it stops for the cancellation.
    func cancel()
}

extension HTTPTransport {
    public func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
                     completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream {
        TaskStream(task: Task {
            do {
                completion(.success(try await perform(request, onChunk: onChunk)))
            } catch {
                completion(.failure(error))
            }
        })
    }
}

/// A stream a task waits for (the default ``HTTPTransport/open(_:onChunk:completion:)``).
private struct TaskStream: OpenStream {
    let task: Task<Void, Never>

    func cancel() { task.cancel() }
}

/// The libcurl transport: one thread and one multi handle serve every request and stream
/// of the clients that share it, reusing connections.
public final class CurlTransport: HTTPTransport {
    private let loop = CurlLoop()

    public init() {}

    deinit { loop.stop() }

    public func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
        try Task.checkCancellation()
        let transfer = try CurlTransfer(request, onChunk: onChunk)
        transfer.unpause = { [loop, held = WeakTransfer(transfer: transfer)] in
            if let transfer = held.transfer { loop.unpause(transfer) }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.whenDone { continuation.resume(with: $0) }
                loop.add(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    public func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
                     completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request, onChunk: onChunk)
        } catch {
            completion(.failure(error))
            return CurlStream(loop: loop, transfer: nil)
        }
        transfer.unpause = { [loop, held = WeakTransfer(transfer: transfer)] in
            if let transfer = held.transfer { loop.unpause(transfer) }
        }
        transfer.whenDone(completion)
        loop.add(transfer)
        return CurlStream(loop: loop, transfer: transfer)
    }
}

/// A stream libcurl's loop runs; the loop holds its transfer while it is in flight.
private struct CurlStream: OpenStream, @unchecked Sendable {
    let loop: CurlLoop
    weak var transfer: CurlTransfer?

    func cancel() {
        if let transfer { loop.cancel(transfer) }
    }
}

/// A transfer the loop may still run, without keeping it alive.
private struct WeakTransfer: @unchecked Sendable {
    weak var transfer: CurlTransfer?
}
