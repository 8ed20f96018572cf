import CCAIWire
import Foundation

/// The operator's log of webhook deliveries: `GET /admin/webhook_deliveries`, newest
/// first (empty when the configuration has no `webhooks`). The deliveries themselves are
/// ``WebhookDispatcher``'s.
struct WebhookRoutes: Sendable {
    let webhooks: WebhookDispatcher?

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.webhookDeliveries, deliveries)
    }

    /// The operator's list (admin token, not an end user's session).
    private func deliveries(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.webhookDeliveries, cursor: "before")
        return try .json(WebhookDeliveryRecords(deliveries: webhooks?.deliveries(before: page.after, limit: page.limit) ?? []))
    }
}
