import CCAIWire
import Foundation

/// A queue's announcement of one kind (docs/calls.md, audible messages): its caption and,
/// optionally, where its audio is (an `http` or `https` URL).
///
/// ```lua
/// audible_messages = { all_agents_busy = { text = { en = "All agents are busy", es = "..." },
///                                          audio_url = "https://cdn.acme.test/busy.mp3" } }
/// ```
public struct AudibleMessageConfiguration: Codable, Sendable {
    public var text: LocalizedText
    public var audioUrl: String?
}

/// The wait-time deflection of a voice channel (docs/calls.md): once a waiting call's
/// estimate reaches `after_seconds`, the platform offers `offers` (in this order), once.
///
/// ```lua
/// wait_deflection = { after_seconds = 600, offers = { "scheduled_call", "voicemail" },
///                     message = "The wait is long: leave a message?" }
/// ```
public struct WaitDeflectionConfiguration: Codable, Sendable {
    public var afterSeconds: Double
    public var offers: [CallDeflectionOffer]
    public var message: LocalizedText?
}

extension SandboxConfiguration {
    /// The audible messages in force on a queue, in `language`: the company's, then each
    /// queue from the top one down to `menuID`, kind by kind; in the order of
    /// ``AudibleMessageKind``.
    func audibleMessages(forMenu menuID: Int, language: String) -> [AudibleMessage] {
        var configured = company.audibleMessages ?? [:]
        for menu in Self.path(to: menuID, in: menus ?? []) ?? [] {
            configured.merge(menu.audibleMessages ?? [:]) { _, queue in queue }
        }
        return AudibleMessageKind.allCases.compactMap { kind in
            guard let message = configured[kind.rawValue],
                let text = message.text.text(language, fallback: company.languages.first ?? "en")
            else { return nil }
            return AudibleMessage(kind: kind, text: text, audioUrl: message.audioUrl)
        }
    }

    /// What is wrong with the calls' settings: unknown kinds of audible messages, audio
    /// that is not at an http(s) URL, voicemail without a phone number, a wait deflection
    /// without a threshold or offering what the queue cannot do.
    func callProblems() -> [String] {
        var problems: [String] = []
        var places: [(String, [String: AudibleMessageConfiguration])] = company.audibleMessages.map { [("company.audible_messages", $0)] } ?? []
        places += allMenus.compactMap { menu in menu.audibleMessages.map { ("menus[id \(menu.id)].audible_messages", $0) } }
        let kinds = AudibleMessageKind.allCases.map(\.rawValue)
        for (field, messages) in places {
            for (kind, message) in messages.sorted(by: { $0.key < $1.key }) {
                if !kinds.contains(kind) {
                    problems.append("\(field): unknown kind '\(kind)'; " + kinds.joined(separator: ", ") + " expected"
                                    + Suggestion.didYouMean(kind, among: kinds))
                }
                if let url = message.audioUrl, !Self.isWebAddress(url) {
                    problems.append("\(field).\(kind).audio_url: an http or https URL expected, got '\(url)'")
                }
            }
        }
        for menu in allMenus {
            guard let voice = menu.channels?.voiceCall else { continue }
            let field = "menus[id \(menu.id)].channels.voice_call"
            if voice.redirectToVoicemail == true, voice.phoneNumber == nil {
                problems.append("\(field).redirect_to_voicemail: a voicemail box needs the channel's phone_number")
            }
            guard let deflection = voice.waitDeflection else { continue }
            if !(deflection.afterSeconds >= 0 && deflection.afterSeconds <= 86_400 * 7) {
                problems.append("\(field).wait_deflection.after_seconds: a number of seconds from 0 to 604800 expected")
            }
            if deflection.offers.isEmpty { problems.append("\(field).wait_deflection.offers: at least one offer") }
            if deflection.offers.contains(.scheduledCall), voice.schedule != true {
                problems.append("\(field).wait_deflection.offers: scheduled_call needs the channel's schedule = true")
            }
            for offer in [CallDeflectionOffer.phoneNumber, .voicemail] where deflection.offers.contains(offer) && voice.phoneNumber == nil {
                problems.append("\(field).wait_deflection.offers: \(offer.rawValue) needs the channel's phone_number")
            }
        }
        return problems
    }

    private static func isWebAddress(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return false }
        return text.utf8.count <= 2_048
    }
}
