import CCAIWire
import Testing

/// What the app opens for a queue's e-mail and external links (seed 002, "Email" and
/// "External deflection links").
@Suite struct EmailDraftTests {
    private func menu(_ channels: Channels) -> QueueMenu {
        QueueMenu(id: 1, name: "Billing", channels: channels)
    }

    /// The body is percent-encoded whole, so that `&`, `=`, `#`, `?` and line breaks stay
    /// text (RFC 6068); the address keeps `@` and `+`.
    @Test func theMailtoURLCarriesTheAddressAndTheInstructions() throws {
        let draft = try #require(menu(Channels(email: EmailChannel(email: "help+billing@acme.test",
                                                                   instructionMessage: "Account #: A&B=1?\nThanks ¿ñ"))).composeEmail())
        #expect(draft.to == "help+billing@acme.test" && draft.body == "Account #: A&B=1?\nThanks ¿ñ")
        #expect(draft.url == "mailto:help+billing@acme.test?body=Account%20%23%3A%20A%26B%3D1%3F%0AThanks%20%C2%BF%C3%B1")
        #expect(EmailDraft(to: "a@b.test", body: "").url == "mailto:a@b.test", "no body, no query")
        #expect(menu(Channels(email: EmailChannel(email: nil, instructionMessage: "x"))).composeEmail() == nil, "no address")
        #expect(menu(Channels()).composeEmail() == nil)
    }

    /// The buttons are the enabled links of an enabled channel, as getEnabledChannels lists them.
    @Test func onlyEnabledLinksAreButtons() {
        let links = [ExternalDeflection(url: "https://help.test", displayName: "Help", enabled: true),
                     ExternalDeflection(url: "https://old.test", displayName: "Old", enabled: false),
                     ExternalDeflection(url: "https://unsaid.test", displayName: "Unsaid", enabled: nil)]
        let open = menu(Channels(externalDeflectionLink: ExternalDeflectionLink(enabled: true, links: links)))
        #expect(open.getDeflectionLinks().map(\.displayName) == ["Help"])
        #expect(open.getEnabledChannels() == [.externalDeflection(url: "https://help.test", displayName: "Help")])
        let off = menu(Channels(externalDeflectionLink: ExternalDeflectionLink(enabled: false, links: links)))
        #expect(off.getDeflectionLinks().isEmpty && off.getEnabledChannels().isEmpty)
    }
}
