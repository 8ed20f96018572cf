import CCAIWire
import Foundation
import Timekeeping

/// An HTTP client over a transport (libcurl by default: one thread and one multi handle
/// serve every request and reuse connections); requests are async, time out, can be
/// cancelled, and retried as
/// ``RetryPolicy`` says: idempotent ones with exponential backoff when the server is
/// unreachable or answers 502, 503 or 504, any one answered 429 (refused before it was
/// processed) after the server's `Retry-After` when it is short enough to wait for (a
/// quota's is not: that 429 is the answer). Its waits, and every wait of the SDK
/// instances that share it, are on `clock`.
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:8787/company"))
/// ```
public final class HTTPClient: Sendable {
    public let retryPolicy: RetryPolicy
    /// The time the SDK waits on: retries, the outbox's patience, reconnections.
    public let clock: any TimeSource
    /// How requests reach the server.
    public let transport: any HTTPTransport

    public init(retryPolicy: RetryPolicy = .standard, clock: any TimeSource = SystemClock(),
                transport: any HTTPTransport = CurlTransport()) {
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.transport = transport
    }

    /// Sends `request`, retrying it when that is safe; throws ``TransportError`` or
    /// `CancellationError`.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var attempt = 0
        // A 429 is the server's own instruction, honoured for every request; failures that
        // may pass are retried here unless the caller retries them.
        let failureRetries = request.retriedByCaller ? 0 : retryPolicy.maximumRetries
        while true {
            var delay = retryPolicy.initialBackoff * pow(2, Double(attempt))
            do {
                let response = try await perform(request)
                if response.status == 429 {
                    // A rate limit passes within moments; a quota (an hour's chats) does not,
                    // and its Retry-After says so: past what the request may wait, it fails now.
                    let asked = response.headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? delay
                    guard attempt < retryPolicy.maximumRetries, asked <= longestRetryAfter(for: request) else { return response }
                    delay = max(asked, 0)
                } else {
                    guard request.isIdempotent, [502, 503, 504].contains(response.status), attempt < failureRetries
                    else { return response }
                }
            } catch let error as TransportError where error.isRetryable && request.isIdempotent {
                if attempt >= failureRetries { throw error }
            }
            try await clock.sleep(for: delay)
            attempt += 1
        }
    }

    /// The longest `Retry-After` a retry of `request` waits for: the policy's, and less
    /// than the request's own timeout.
    private func longestRetryAfter(for request: HTTPClientRequest) -> TimeInterval {
        request.timeout > 0 ? min(retryPolicy.maximumRetryAfter, request.timeout) : retryPolicy.maximumRetryAfter
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
        try await transport.perform(request, onChunk: onChunk)
    }
}

extension HTTPClient {
    /// One call of `endpoint` as the SDK and the Apps client make it: its answer read up to
    /// the endpoint's limit, a transport failure as ``NetworkError``, a cancellation and an
    /// answer that is not 2xx as ``CCAIError``.
    func call(_ request: HTTPClientRequest, _ endpoint: Endpoint) async throws -> HTTPClientResponse {
        var request = request
        request.maximumResponseBytes = endpoint.maximumResponseBytes
        let response: HTTPClientResponse
        do {
            response = try await send(request)
        } catch let error as TransportError {
            throw NetworkError(error, operation: endpoint.operation)
        } catch is CancellationError {
            throw CCAIError(code: .cancelled, message: "the call was cancelled")
        }
        guard (200..<300).contains(response.status) else { throw CCAIError(status: response.status, body: response.body) }
        return response
    }
}
