import CCAIWire
import Foundation
import Timekeeping

/// An HTTP client over a transport (libcurl by default: one thread and one multi handle
/// serve every request and reuse connections); requests are async, time out, can be
/// cancelled, and retried in one loop per call as each error code's ``ErrorCode/Retry`` and
/// ``RetryPolicy`` say: idempotent ones with exponential backoff when the server is
/// unreachable or answers 502, 503 or 504, any one answered 429 (refused before it was
/// processed) after the server's `Retry-After` when it is a rate limit short enough to
/// wait for (a quota's is not: that 429 is the answer). Its waits, and every wait of the
/// SDK instances that share it, are on `clock`.
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:8787/company"))
/// ```
public final class HTTPClient: Sendable {
    public let retryPolicy: RetryPolicy
    /// The time the SDK waits on: retries and their budgets (a message's patience), reconnections.
    public let clock: any TimeSource
    /// How requests reach the server.
    public let transport: any HTTPTransport

    public init(retryPolicy: RetryPolicy = .standard, clock: any TimeSource = SystemClock(),
                transport: any HTTPTransport = CurlTransport()) {
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.transport = transport
    }

    /// Sends `request`, retrying it as ``RetryPolicy`` says an ordinary request is
    /// (within its timeout); throws ``TransportError`` or `CancellationError`. A non-2xx
    /// answer that is not retried is returned.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try await send(request, retrying: retryPolicy.request(timeout: request.timeout))
    }

    /// Puts the token on an attempt (`request`); `renewing`: the last one was refused.
    typealias Authorize = @Sendable (_ request: inout HTTPClientRequest, _ renewing: Bool) async throws -> Void

    /// Sends `request` in the call's one retry loop: after a failure, the error code's
    /// ``ErrorCode/Retry`` and `schedule`'s budget say whether and when it is sent again.
    /// `authorize` puts the token on each attempt; `renewing` is true after a refused one
    /// (once a call), and without it a 401 is the answer.
    func send(_ request: HTTPClientRequest, retrying schedule: RetrySchedule, authorize: Authorize? = nil) async throws
        -> HTTPClientResponse
    {
        var retries = CallRetries(schedule: schedule, policy: retryPolicy, start: clock.now(), isIdempotent: request.isIdempotent,
                                  canRenewToken: authorize != nil)
        var request = request
        var renewing = false
        var isFirst = true
        while true {
            try await authorize?(&request, renewing)
            let next: CallRetries.Next
            do {
                defer { isFirst = false }
                let response = try await perform(request, within: retries, isFirst: isFirst)
                guard !(200..<300).contains(response.status) else { return response }
                let code = CCAIError(status: response.status, body: response.body).code
                next = retries.next(after: code, retryAfter: response.headers["retry-after"], now: clock.now())
                if next == .fail { return response }
            } catch let error as TransportError {
                next = retries.next(after: NetworkError(error, operation: nil).code, retryAfter: nil, now: clock.now())
                if next == .fail { throw error }
            }
            renewing = next == .renewToken
            if case .wait(let seconds) = next { try await clock.sleep(for: seconds) }
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

    /// Starts a request whose 2xx body is a stream, as ``stream(_:onChunk:)`` does, with no
    /// task waiting for it: `completion` is told what `stream` would return or throw, once
    /// (see ``HTTPTransport/open(_:onChunk:completion:)``). Never retried.
    public func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
                     completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream {
        transport.open(request, onChunk: onChunk, completion: completion)
    }

    /// One attempt of a call, given what is left of the call's one deadline as its timeout
    /// (a request with no timeout, 0, keeps none): a slow answer is not waited for past it.
    /// The first attempt keeps its timeout unless its budget began earlier (a queued
    /// message's): the deadline is that far away.
    private func perform(_ request: HTTPClientRequest, within retries: CallRetries, isFirst: Bool) async throws
        -> HTTPClientResponse
    {
        guard request.timeout > 0, !isFirst || retries.schedule.start != nil else { return try await perform(request) }
        let left = retries.timeLeft(at: clock.now())
        guard left > 0 else { throw TransportError.timeout(retries.schedule.budget) }
        var attempt = request
        attempt.timeout = min(request.timeout, left)
        return try await perform(attempt)
    }

    /// One attempt.
    private func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)? = nil) async throws
        -> HTTPClientResponse
    {
        try await transport.perform(request, onChunk: onChunk)
    }
}

extension HTTPClient {
    /// One call of `endpoint` as the SDK and the Apps client make it, in its one retry loop
    /// (`schedule`, or an ordinary request's; `authorize` as in
    /// ``send(_:retrying:authorize:)``): its answer read up to the endpoint's limit, a
    /// transport failure as ``NetworkError``, a cancellation and an answer that is not 2xx
    /// as ``CCAIError``.
    func call(_ request: HTTPClientRequest, _ endpoint: Endpoint, retrying schedule: RetrySchedule? = nil,
              authorize: Authorize? = nil) async throws -> HTTPClientResponse {
        var request = request
        request.maximumResponseBytes = endpoint.maximumResponseBytes
        let response: HTTPClientResponse
        do {
            response = try await send(request, retrying: schedule ?? retryPolicy.request(timeout: request.timeout),
                                      authorize: authorize)
        } catch let error as TransportError {
            throw NetworkError(error, operation: endpoint.operation)
        } catch is CancellationError {
            throw CCAIError(code: .cancelled, message: "the call was cancelled")
        }
        guard (200..<300).contains(response.status) else { throw CCAIError(status: response.status, body: response.body) }
        return response
    }
}
