import CCAIWire
import Foundation

/// A request for ``HTTPClient``.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [String: String]
    public var body: Data?
    /// Seconds before the request fails with ``TransportError/timeout`` (default 30).
    public var timeout: TimeInterval
    /// Whether sending it twice is harmless, so that it may be retried (GET, HEAD, PUT,
    /// DELETE and OPTIONS by default).
    public var isIdempotent: Bool
    /// The most bytes of the answer's body read into memory; past it the transfer is
    /// aborted with ``TransportError/tooLarge(limit:)``. A stream's 2xx chunks are handed
    /// on, not kept, and do not count (default: ``Endpoint/defaultMaximumResponseBytes``;
    /// the SDK uses each endpoint's own ``Endpoint/maximumResponseBytes``).
    public var maximumResponseBytes = Endpoint.defaultMaximumResponseBytes
    /// When not empty, the only addresses (IP literals) the URL's host may connect to: no
    /// lookup of its own and no proxy, so that what a guard checked is what is reached
    /// (the sandbox's webhooks: the SSRF guard resolves, the transport connects).
    public var pinnedAddresses: [String] = []
    /// For a stream: back-pressure from its consumer (the transport stops reading while the
    /// consumer is behind). nil: every chunk is handed on as it comes.
    public var flow: StreamFlow?
    /// The most bytes of response headers read (64 KiB), whatever the request.
    public static let maximumHeaderBytes = 64 << 10

    public init(method: String = "GET", url: String, headers: [String: String] = [:], body: Data? = nil,
                timeout: TimeInterval = 30, isIdempotent: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
    }
}

/// What the server answered.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// Headers with lowercased names.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request got no answer.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request took longer than its timeout.
    case timeout(TimeInterval)
    /// The server could not be reached or dropped the connection (worth retrying).
    case unavailable(String)
    /// Anything else libcurl reports (a malformed URL, say).
    case failed(String)
    /// The answer (its body, or its headers) was larger than the request allows
    /// (``HTTPClientRequest/maximumResponseBytes``): the transfer was aborted.
    case tooLarge(limit: Int)

    public var isRetryable: Bool {
        switch self {
        case .timeout, .unavailable: return true
        case .failed, .tooLarge: return false
        }
    }

    public var description: String {
        switch self {
        case .timeout(let seconds): return "no answer within \(seconds) seconds"
        case .unavailable(let why): return "the server is unavailable: \(why)"
        case .failed(let why): return why
        case .tooLarge(let limit): return "the answer is larger than the \(limit) bytes allowed"
        }
    }
}
