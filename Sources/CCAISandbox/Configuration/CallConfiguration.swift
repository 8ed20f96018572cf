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

/// How a voice channel with `schedule = true` books callbacks (docs/calls.md, scheduled
/// calls): slots of `slot_minutes` inside the queue's business hours (company time zone),
/// `calls_per_slot` bookings each, from `notice_minutes` ahead to `days_ahead` days out;
/// a callback that comes due rings for `ring_seconds`.
///
/// ```lua
/// scheduling = { slot_minutes = 15, calls_per_slot = 2, days_ahead = 3, ring_seconds = 30 }
/// ```
public struct SchedulingConfiguration: Codable, Sendable {
    public var slotMinutes: Int?
    /// Bookings a slot takes: the queue's agents (at least 1) when not given.
    public var callsPerSlot: Int?
    public var daysAhead: Int?
    public var noticeMinutes: Int?
    public var ringSeconds: Double?

    public init(slotMinutes: Int? = nil, callsPerSlot: Int? = nil, daysAhead: Int? = nil, noticeMinutes: Int? = nil,
                ringSeconds: Double? = nil) {
        (self.slotMinutes, self.callsPerSlot, self.daysAhead) = (slotMinutes, callsPerSlot, daysAhead)
        (self.noticeMinutes, self.ringSeconds) = (noticeMinutes, ringSeconds)
    }

    static let defaultSlotMinutes = 30
    static let defaultDaysAhead = 7
    static let defaultRingSeconds = 60.0

    var effectiveSlotMinutes: Int { slotMinutes ?? Self.defaultSlotMinutes }
    var effectiveDaysAhead: Int { daysAhead ?? Self.defaultDaysAhead }
    var effectiveNoticeMinutes: Int { noticeMinutes ?? 0 }
    var effectiveRingSeconds: Double { ringSeconds ?? Self.defaultRingSeconds }

    /// What is wrong with the numbers, each named under `field`.
    func problems(_ field: String) -> [String] {
        var problems: [String] = []
        func check(_ value: Int?, _ name: String, _ range: ClosedRange<Int>) {
            if let value, !range.contains(value) {
                problems.append("\(field).\(name): a whole number from \(range.lowerBound) to \(range.upperBound) expected, got \(value)")
            }
        }
        check(slotMinutes, "slot_minutes", 5...240)
        check(callsPerSlot, "calls_per_slot", 1...1_000)
        check(daysAhead, "days_ahead", 1...60)
        check(noticeMinutes, "notice_minutes", 0...10_080)
        if let ringSeconds, !(ringSeconds >= 5 && ringSeconds <= 600) {
            problems.append("\(field).ring_seconds: a number of seconds from 5 to 600 expected")
        }
        return problems
    }
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
            if let scheduling = voice.scheduling {
                if voice.schedule != true { problems.append("\(field).scheduling: needs the channel's schedule = true") }
                problems += scheduling.problems("\(field).scheduling")
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
