import CCAIKit
import CCAISandbox
import Foundation

/// The sandbox's webhooks over HTTP: each ``WebhookRequest`` POSTed once through the
/// SDK's libcurl transport, to the pinned addresses only (no lookup of its own, no proxy),
/// following no redirect, reading at most 1 MiB of the answer. A transport of its own
/// (its own connections and DNS cache), so that the addresses pinned for webhooks never
/// serve another request.
///
/// ```swift
/// let sandbox = try Sandbox(configuration: configuration, webhookTransport: CurlWebhookTransport.for(configuration))
/// ```
public struct CurlWebhookTransport: WebhookTransport {
    private let transport: CurlTransport

    public init() {
        transport = CurlTransport()
    }

    /// A transport when `configuration` has `webhooks`, else nil (no libcurl loop for nothing).
    public static func `for`(_ configuration: SandboxConfiguration) -> CurlWebhookTransport? {
        configuration.webhooks == nil ? nil : CurlWebhookTransport()
    }

    public func post(_ request: WebhookRequest) async throws -> Int {
        var post = HTTPClientRequest(method: "POST", url: request.url, headers: request.headers, body: request.body,
                                     timeout: request.timeout, isIdempotent: false)
        post.pinnedAddresses = request.pinnedAddresses
        post.maximumResponseBytes = 1 << 20
        return try await transport.perform(post, onChunk: nil).status
    }
}
