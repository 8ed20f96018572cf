import CCAIWire
import Foundation

/// An HTTP client on libcurl: one thread and one multi handle serve every request (and
/// reuse connections); requests are async, time out, can be cancelled, and idempotent
/// ones are retried with exponential backoff when the server is unreachable or answers
/// 502, 503 or 504. Any request answered 429 (refused before it was processed) is retried
/// after the server's `Retry-After` (at most ``maximumRetryAfterSeconds``).
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:8787/company"))
/// ```
public final class HTTPClient: Sendable {
    public struct RetryPolicy: Sendable {
        /// Retries after the first attempt (default 3).
        public var maximumRetries: Int
        /// Seconds before the first retry; doubled each time (default 0.1).
        public var initialBackoff: TimeInterval

        public init(maximumRetries: Int = 3, initialBackoff: TimeInterval = 0.1) {
            self.maximumRetries = maximumRetries
            self.initialBackoff = initialBackoff
        }
    }

    /// The longest `Retry-After` honoured: a platform cannot park a request for longer.
    public static let maximumRetryAfterSeconds: TimeInterval = 10

    public let retryPolicy: RetryPolicy
    private let loop = CurlLoop()

    public init(retryPolicy: RetryPolicy = RetryPolicy()) {
        self.retryPolicy = retryPolicy
    }

    deinit { loop.stop() }

    /// Sends `request`, retrying it when that is safe; throws ``TransportError`` or
    /// `CancellationError`.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var attempt = 0
        while true {
            var delay = retryPolicy.initialBackoff * pow(2, Double(attempt))
            do {
                let response = try await perform(request)
                if response.status == 429, attempt < retryPolicy.maximumRetries {
                    let asked = response.headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? delay
                    delay = min(max(asked, 0), Self.maximumRetryAfterSeconds)
                } else {
                    guard request.isIdempotent, [502, 503, 504].contains(response.status),
                        attempt < retryPolicy.maximumRetries
                    else { return response }
                }
            } catch let error as TransportError where error.isRetryable && request.isIdempotent {
                if attempt >= retryPolicy.maximumRetries { throw error }
            }
            try await Task.sleep(nanoseconds: Checked.nanoseconds(seconds: delay))
            attempt += 1
        }
    }

    /// Sends a request whose 2xx body is a stream: `onChunk` gets each piece as it
    /// arrives (return false to stop). Returns when the stream ends, with the status and
    /// headers (and, for a non-2xx answer, its body). Never retried.
    public func stream(_ request: HTTPClientRequest, onChunk: @escaping (Int, Data) -> Bool) async throws
        -> HTTPClientResponse
    {
        try await perform(request, onChunk: onChunk)
    }

    /// One attempt.
    private func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)? = nil) async throws
        -> HTTPClientResponse
    {
        try Task.checkCancellation()
        let transfer = try CurlTransfer(request)
        transfer.onChunk = onChunk
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
