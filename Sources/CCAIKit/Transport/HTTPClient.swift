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

    /// The `Authorization` header of an attempt; `renewing`: the last one was refused.
    typealias Authorize = @Sendable (_ renewing: Bool) async throws -> String

    /// Sends `request` in the call's one retry loop: after a failure, the error code's
    /// ``ErrorCode/Retry`` and `schedule`'s budget say whether and when it is sent again.
    /// `authorize` gives each attempt its `Authorization` header; `renewing` is true after a
    /// refused one (once a call), and without it a 401 is the answer. `maximumResponseBytes`,
    /// if given, replaces the request's. The loop's state is ``CallRetries``, its decisions
    /// are made out of line, and each attempt is made in a frame of its own: the frames this
    /// keeps on its task while an attempt is in flight stay small.
    func send(_ request: HTTPClientRequest, retrying schedule: RetrySchedule, authorize: Authorize? = nil,
              maximumResponseBytes: Int? = nil) async throws -> HTTPClientResponse {
        var retries = CallRetries(schedule: schedule, policy: retryPolicy, start: clock.now(), isIdempotent: request.isIdempotent,
                                  canRenewToken: authorize != nil)
        while true {
            let authorization = try await authorize?(retries.isRenewing)
            let outcome = try await attempt(request, authorization: authorization, maximumResponseBytes: maximumResponseBytes,
                                            within: retries)
            switch retries.step(after: outcome, now: clock.now()) {
            case .answer: return try outcome.get()
            case .again: continue
            case .wait(let seconds): try await clock.sleep(for: seconds)
            }
        }
    }

    /// Sends a request whose 2xx body is a stream: `onChunk` gets each piece as it
    /// arrives (return false to stop). Returns when the stream ends, with the status and
    /// headers (and, for a non-2xx answer, its body). Never retried.
    public func stream(_ request: HTTPClientRequest, onChunk: @escaping (Int, Data) -> Bool) async throws
        -> HTTPClientResponse
    {
        try await transport.perform(request, onChunk: onChunk)
    }

    /// Starts a request whose 2xx body is a stream, as ``stream(_:onChunk:)`` does, with no
    /// task waiting for it: `completion` is told what `stream` would return or throw, once
    /// (see ``HTTPTransport/open(_:onChunk:completion:)``). Never retried.
    public func open(_ request: HTTPClientRequest, onChunk: @escaping @Sendable (Int, Data) -> Bool,
                     completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) -> any OpenStream {
        transport.open(request, onChunk: onChunk, completion: completion)
    }

    /// One attempt of a call: `request` with its `authorization` and its answer's limit, given
    /// what is left of the call's one deadline as its timeout (a request with no timeout, 0,
    /// keeps none): a slow answer is not waited for past it. The first attempt keeps its
    /// timeout unless its budget began earlier (a queued message's): the deadline is that far
    /// away. A transport failure is its outcome; a cancellation is thrown.
    @inline(never)
    private func attempt(_ request: HTTPClientRequest, authorization: String?, maximumResponseBytes: Int?,
                         within retries: CallRetries) async throws -> Result<HTTPClientResponse, TransportError> {
        do {
            return .success(try await transport.perform(
                try Self.attempt(request, authorization: authorization, maximumResponseBytes: maximumResponseBytes,
                                 timeLeft: request.timeout > 0 && (retries.sent > 0 || retries.schedule.start != nil)
                                     ? retries.timeLeft(at: clock.now()) : nil,
                                 budget: retries.schedule.budget),
                onChunk: nil))
        } catch let error as TransportError {
            return .failure(error)
        }
    }

    /// The request an attempt sends: `timeLeft` (nil: the whole timeout) bounds its timeout.
    @inline(never)
    private static func attempt(_ request: HTTPClientRequest, authorization: String?, maximumResponseBytes: Int?,
                                timeLeft: TimeInterval?, budget: TimeInterval) throws -> HTTPClientRequest {
        var attempt = request
        if let authorization { attempt.headers["Authorization"] = authorization }
        if let maximumResponseBytes { attempt.maximumResponseBytes = maximumResponseBytes }
        if request.timeout > 0, let timeLeft {
            guard timeLeft > 0 else { throw TransportError.timeout(budget) }
            attempt.timeout = min(request.timeout, timeLeft)
        }
        return attempt
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
        let response: HTTPClientResponse
        do {
            response = try await send(request, retrying: schedule ?? retryPolicy.request(timeout: request.timeout),
                                      authorize: authorize, maximumResponseBytes: endpoint.maximumResponseBytes)
        } catch {
            throw Self.callError(error, of: endpoint)
        }
        return try Self.answer(response)
    }

    /// A call's failure as the SDK tells it: a transport failure as ``NetworkError``, a
    /// cancellation as ``CCAIError``; any other error as it is.
    @inline(never)
    private static func callError(_ error: any Error, of endpoint: Endpoint) -> any Error {
        switch error {
        case let error as TransportError: return NetworkError(error, operation: endpoint.operation)
        case is CancellationError: return CCAIError(code: .cancelled, message: "the call was cancelled")
        default: return error
        }
    }

    /// A 2xx answer, or the ``CCAIError`` an answer that is not 2xx is.
    @inline(never)
    private static func answer(_ response: HTTPClientResponse) throws -> HTTPClientResponse {
        guard (200..<300).contains(response.status) else { throw CCAIError(status: response.status, body: response.body) }
        return response
    }
}
