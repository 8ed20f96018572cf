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
                transfer.wait(continuation)
                loop.add(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}

/// A transfer the loop may still run, without keeping it alive.
private struct WeakTransfer: @unchecked Sendable {
    weak var transfer: CurlTransfer?
}
