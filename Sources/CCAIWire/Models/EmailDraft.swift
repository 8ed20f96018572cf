import Foundation

/// What the app opens to write to a queue by e-mail (seed 002, "Email"): the queue's
/// address, the instructions its administrator wants the user to see as the body, and
/// the `mailto:` URL (RFC 6068) that carries both to the device's composer. The SDK sends
/// no e-mail and cannot know whether one was sent: the app's composer does that.
///
/// ```swift
/// if let draft = menu.composeEmail() { open(URL(string: draft.url)!) }   // mailto:billing@acme.test?body=Add%20your...
/// ```
public struct EmailDraft: Codable, Hashable, Sendable {
    public var to: String
    public var body: String?
    public var url: String

    public init(to: String, body: String?) {
        self.to = to
        self.body = body
        var url = "mailto:" + Self.encoded(to, keeping: Self.addressCharacters)
        if let body, !body.isEmpty { url += "?body=" + Self.encoded(body, keeping: Self.unreserved) }
        self.url = url
    }

    /// RFC 3986's unreserved characters: everything else in a body is percent-encoded
    /// (spaces, `&`, `=`, `#`, `?`, line breaks, every non-ASCII byte).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// What an address keeps as it is: the unreserved characters, `@` and `+`.
    private static let addressCharacters = unreserved.union(CharacterSet(charactersIn: "@+"))

    private static func encoded(_ text: String, keeping allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

extension QueueMenu {
    /// The e-mail the app would open for this queue (its `email` channel's address and
    /// instruction message); nil when the queue takes no e-mail or names no address.
    public func composeEmail() -> EmailDraft? {
        guard let email = channels?.email, let address = email.email, !address.isEmpty else { return nil }
        return EmailDraft(to: address, body: email.instructionMessage)
    }

    /// The external deflection links the app shows as buttons: the enabled ones of an
    /// enabled `external_deflection_link` channel, in order (the same set
    /// ``getEnabledChannels()`` lists as `.externalDeflection`).
    public func getDeflectionLinks() -> [ExternalDeflection] {
        guard let external = channels?.externalDeflectionLink, external.enabled != false else { return [] }
        return (external.links ?? []).filter { $0.enabled == true }
    }
}
