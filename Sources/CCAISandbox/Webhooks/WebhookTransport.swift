import Foundation

/// One POST of a webhook delivery, as a ``WebhookTransport`` sends it.
public struct WebhookRequest: Sendable, Equatable {
    /// The configured URL (`http` or `https`, no credentials).
    public var url: String
    /// The addresses the URL's host resolved to when the guard checked it, as IP literals:
    /// the transport connects to these and nothing else (no second lookup that DNS could
    /// answer differently, no proxy). Empty when the host is an IP literal itself.
    public var pinnedAddresses: [String]
    /// `Content-Type`, `X-Signature`, `X-Signature-Timestamp`.
    public var headers: [String: String]
    /// The exact bytes signed.
    public var body: Data
    /// Seconds before the attempt counts as failed.
    public var timeout: TimeInterval

    public init(url: String, pinnedAddresses: [String], headers: [String: String], body: Data, timeout: TimeInterval) {
        self.url = url
        self.pinnedAddresses = pinnedAddresses
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// How the sandbox POSTs webhooks: CCAISandbox has no HTTP client of its own (no libcurl;
/// Package.swift), so the program that runs it gives one. CCAIBridge's
/// `CurlWebhookTransport` is the real one; tests give fakes.
///
/// A transport sends once (the dispatcher retries), follows no redirect (a 3xx is the
/// answer), connects only to ``WebhookRequest/pinnedAddresses`` when there are any, and
/// reads at most a few kilobytes of the answer (its status is what counts).
///
/// ```swift
/// struct Recording: WebhookTransport {
///     func post(_ request: WebhookRequest) async throws -> Int { 204 }
/// }
/// ```
public protocol WebhookTransport: Sendable {
    /// Sends the request once and returns the answer's HTTP status; throws when there was
    /// no answer (refused, reset, timed out).
    func post(_ request: WebhookRequest) async throws -> Int
}
