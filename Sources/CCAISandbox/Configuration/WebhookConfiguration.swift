import CCAIWire
import Foundation

/// Where the sandbox POSTs the events of Apps API chats, signed (docs/webhooks.md):
///
/// ```lua
/// webhooks = { url = "http://127.0.0.1:9000/hooks",
///              primary_secret = "a-long-random-secret", secondary_secret = "the-next-one-to-rotate-in",
///              allow_remote = false }
/// ```
///
/// The URL must be `http` or `https`, carry no credentials, and (unless `allow_remote`
/// is true) name a host that resolves to loopback addresses only: the SSRF guard, checked
/// here and again at each delivery. Each secret is at least ``minimumSecretBytes`` bytes.
public struct WebhookConfiguration: Codable, Sendable, Equatable {
    public var url: String
    /// Signs every request (`X-Signature: primary=...`).
    public var primarySecret: String
    /// Signs every request as well when set (`secondary=...`), so that a receiver can
    /// move to a new secret without missing a delivery.
    public var secondarySecret: String?
    /// Whether the URL may lead beyond this machine (default false).
    public var allowRemote: Bool?

    /// The shortest secret accepted: 16 bytes (our choice; an HMAC key shorter than that
    /// is guessable).
    public static let minimumSecretBytes = 16

    public init(url: String, primarySecret: String, secondarySecret: String? = nil, allowRemote: Bool? = nil) {
        self.url = url
        self.primarySecret = primarySecret
        self.secondarySecret = secondarySecret
        self.allowRemote = allowRemote
    }

    /// The guard of this configuration's URL, resolving names with `resolve`.
    func addressGuard(resolve: @escaping WebhookAddressGuard.Resolver = WebhookAddressGuard.systemResolve) -> WebhookAddressGuard {
        WebhookAddressGuard(allowRemote: allowRemote ?? false, resolve: resolve)
    }

    /// The signing of every request.
    public var signature: WebhookSignature {
        WebhookSignature(primarySecret: primarySecret, secondarySecret: secondarySecret)
    }

    /// Every problem of the section, each naming its field; the URL is resolved now when
    /// only loopback is allowed (a name that does not resolve, or resolves elsewhere, is a
    /// problem).
    func problems(resolve: @escaping WebhookAddressGuard.Resolver = WebhookAddressGuard.systemResolve) -> [String] {
        var problems: [String] = []
        let addressGuard = self.addressGuard(resolve: resolve)
        do {
            let target = try addressGuard.target(url)
            if !addressGuard.allowRemote { _ = try addressGuard.addresses(of: target) }
        } catch {
            problems.append("webhooks.url: \(error)")
        }
        for (field, secret) in [("primary_secret", Optional(primarySecret)), ("secondary_secret", secondarySecret)] {
            guard let secret else { continue }
            if secret.isEmpty {
                problems.append("webhooks.\(field): must not be empty")
            } else if secret.utf8.count < Self.minimumSecretBytes {
                problems.append("webhooks.\(field): at least \(Self.minimumSecretBytes) bytes expected, got \(secret.utf8.count)")
            }
        }
        if let secondarySecret, secondarySecret == primarySecret {
            problems.append("webhooks.secondary_secret: must differ from primary_secret (it is the one to rotate to)")
        }
        return problems
    }
}
