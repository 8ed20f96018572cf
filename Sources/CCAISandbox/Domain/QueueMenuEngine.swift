import CCAIWire
import Foundation

/// Computes the live queue menu tree: names in the resolved language, channels open or
/// deflected by business hours (company time zone) and capacity, redirections and the
/// deflection rules routing into each queue, wait estimates.
struct QueueMenuEngine {
    let configuration: SandboxConfiguration
    let now: Date
    /// Sessions waiting per queue, chats and calls together (what capacity counts).
    var waiting: [Int: Int] = [:]
    /// Chats queued and calls waiting per queue, for each channel's estimate.
    var waitingByChannel: [SessionChannel: [Int: Int]] = [:]
    /// The published wait estimate (nil: 10 seconds, no one waits and nothing is known).
    var estimator: WaitEstimator?

    /// Why a queue cannot take sessions now.
    enum Deflection: Hashable, Sendable {
        case afterHours, overCapacity

        var type: DeflectionType { self == .afterHours ? .afterHourDeflection : .overCapacityDeflection }
        var reason: String { self == .afterHours ? "after_hours" : "over_capacity" }
        var voicemail: VoicemailReason { self == .afterHours ? .afterHourDeflection : .overCapacityDeflection }
    }

    var company: SandboxConfiguration.Company { configuration.company }

    /// The language to answer in: the requested one if the company has it, else its parent
    /// dialect, else English (seed 000's final fallback).
    func language(_ requested: String?) -> String {
        let languages = company.languages
        if let requested, !requested.isEmpty {
            if let exact = languages.first(where: { $0.caseInsensitiveCompare(requested) == .orderedSame }) { return exact }
            let parent = requested.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? requested
            if let base = languages.first(where: { $0.caseInsensitiveCompare(parent) == .orderedSame }) { return base }
        }
        return "en"
    }

    func isOpen(_ menu: MenuConfiguration) -> Bool {
        guard let hours = menu.hours ?? configuration.hours else { return true }
        return hours.isOpen(at: now, in: TimeZone(identifier: company.timeZone) ?? .current)
    }

    /// The agents of queue `menuID` working now (on shift), for wait estimates.
    func agents(forMenu menuID: Int) -> Int {
        let timeZone = TimeZone(identifier: company.timeZone) ?? .current
        return (configuration.agents ?? []).filter { $0.menus.contains(menuID) && $0.isOnShift(at: now, in: timeZone) }.count
    }

    /// Estimated seconds before a new session of `channel` is answered on `menu`
    /// (``WaitEstimator``).
    func estimatedWait(_ menu: MenuConfiguration, _ channel: SessionChannel) -> Int {
        let ahead = waitingByChannel[channel]?[menu.id] ?? 0
        guard let estimator else { return Int(WaitEstimator.fixedAdditionSeconds) }
        return estimator.seconds(channel, menuID: menu.id, ahead: ahead)
    }

    /// The longest estimate of the channels `menu` offers (a queue with neither: its chat's).
    func estimatedWait(_ menu: MenuConfiguration) -> Int {
        let channels: [SessionChannel] = (menu.channels?.chat != nil ? [.chat] : []) + (menu.channels?.voiceCall != nil ? [.voiceCall] : [])
        return (channels.isEmpty ? [.chat] : channels).map { estimatedWait(menu, $0) }.max() ?? 0
    }

    func isOverCapacity(_ menu: MenuConfiguration) -> Bool {
        guard let capacity = menu.capacity else { return false }
        if let most = capacity.maxWaiting, (waiting[menu.id] ?? 0) >= most { return true }
        if let threshold = capacity.waitThresholdSeconds, Double(estimatedWait(menu)) >= threshold { return true }
        return false
    }

    func deflection(_ menu: MenuConfiguration) -> Deflection? {
        if !isOpen(menu) { return .afterHours }
        if isOverCapacity(menu) { return .overCapacity }
        return nil
    }

    /// Why the queue takes voicemail now, if it does: its voice channel has a phone number
    /// (the voicemail box) and either redirects every caller there for now, or is
    /// deflected (after hours, over capacity).
    func voicemailReason(_ menu: MenuConfiguration) -> VoicemailReason? {
        guard let voice = menu.channels?.voiceCall, voice.phoneNumber != nil else { return nil }
        if voice.redirectToVoicemail == true { return .temporaryRedirection }
        return deflection(menu)?.voicemail
    }

    /// Where a deflected queue sends its users.
    func target(_ menu: MenuConfiguration, _ deflection: Deflection) -> Int? {
        deflection == .afterHours ? menu.deflection?.afterHours : menu.deflection?.overCapacity
    }

    /// The tree for `language` (hidden queues left out), or the queue of a direct access key.
    func menus(key: String?, language requested: String?) -> QueueMenusResponse {
        let language = language(requested)
        if let menu = directAccessMenu(key) {
            return QueueMenusResponse(menus: [render(menu, language)], isDirectAccess: true, language: language)
        }
        return QueueMenusResponse(menus: visible(configuration.menus ?? []).map { render($0, language) },
                                  isDirectAccess: false, language: language)
    }

    /// What ``menus(key:language:)`` answers depends on now (``QueueMenuEncodings``).
    func menusKey(key: String?, language requested: String?) -> QueueMenuEncodings.Key {
        QueueMenuEncodings.Key(directAccessMenu: directAccessMenu(key)?.id, language: language(requested),
                               deflections: configuration.allMenus.map(deflection))
    }

    /// The queue a direct access key opens, if the key is one.
    private func directAccessMenu(_ key: String?) -> MenuConfiguration? {
        guard let key else { return nil }
        return configuration.allMenus.first { $0.directAccessKeys?.contains(key) == true }
    }

    private func visible(_ menus: [MenuConfiguration]) -> [MenuConfiguration] {
        menus.filter { $0.hidden != true }.sorted { ($0.position ?? Int.max, $0.id) < ($1.position ?? Int.max, $1.id) }
    }

    func render(_ menu: MenuConfiguration, _ language: String) -> QueueMenu {
        let fallback = company.languages[0]
        let deflection = deflection(menu)
        let afterHoursText = menu.afterHoursMessage?.text(language, fallback: fallback)
        var settings = QueueMenuSetting(sdk: QueueMenuSDKSetting(
            preSessionSmartAction: menu.preSessionSmartAction ?? false,
            preSessionSmartActionTypes: menu.preSessionChatActions.isEmpty ? nil : menu.preSessionChatActions))
        if let afterHoursText { settings.afterHours = AfterHoursSetting(message: .init(text: afterHoursText)) }
        var redirection: QueueMenuRedirection?
        if let deflection, let target = target(menu, deflection) {
            redirection = QueueMenuRedirection(menuId: target, deflectionType: deflection.type,
                                               message: deflection == .afterHours ? afterHoursText : nil)
        }
        let incoming = configuration.allMenus.compactMap { source -> QueueMenuDeflection? in
            guard source.id != menu.id, let active = self.deflection(source), target(source, active) == menu.id else {
                return nil
            }
            return QueueMenuDeflection(deflectionType: active.type, menuId: source.id)
        }
        let children = visible(menu.children ?? []).map { render($0, language) }
        return QueueMenu(
            id: menu.id, name: menu.name.text(language, fallback: fallback), hidden: menu.hidden ?? false,
            position: menu.position, settings: [settings], children: children.isEmpty ? nil : children,
            channels: channels(menu, deflection), redirectionExtra: redirection,
            deflectionFrom: incoming.isEmpty ? nil : incoming)
    }

    private func channels(_ menu: MenuConfiguration, _ deflection: Deflection?) -> Channels? {
        guard let configured = menu.channels else { return nil }
        var channels = Channels()
        if let chat = configured.chat {
            channels.chat = ChatChannel(enabled: deflection == nil, preSessionSmartAction: chat.preSessionSmartAction ?? false,
                                        redaction: chat.redaction ?? false, deflected: deflection != nil,
                                        deflectedReason: deflection?.reason)
        }
        if let voice = configured.voiceCall {
            channels.voiceCall = VoiceCallChannel(
                instantEnabled: (voice.instant ?? false) && deflection == nil && voice.redirectToVoicemail != true,
                preSessionSmartAction: voice.preSessionSmartAction ?? false, scheduleEnabled: voice.schedule ?? false,
                recordingOption: voice.recording ?? .never, voicemailReason: voicemailReason(menu),
                phoneNumber: voice.phoneNumber, scheduleDeflectionType: deflection?.type.rawValue,
                deflected: deflection != nil, deflectedReason: deflection?.reason, virtualAgent: voice.virtualAgent != nil,
                allowSkipVirtualAgent: voice.allowSkipVirtualAgent ?? false)
        }
        if let email = configured.email {
            channels.email = EmailChannel(email: email.email, instructionMessage: email.instructionMessage)
        }
        if let external = configured.externalDeflectionLink {
            channels.externalDeflectionLink = ExternalDeflectionLink(enabled: external.links.contains { $0.enabled == true },
                                                                     links: external.links)
        }
        return channels
    }

    /// The wait estimates of a queue's channels.
    func waitTimes(_ menu: MenuConfiguration) -> WaitTimes {
        WaitTimes(chat: menu.channels?.chat != nil ? estimatedWait(menu, .chat) : nil,
                  voiceCall: menu.channels?.voiceCall != nil ? estimatedWait(menu, .voiceCall) : nil)
    }
}
