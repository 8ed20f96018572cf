import CCAIWire
import Foundation

/// Computes the live queue menu tree: names in the resolved language, channels open or
/// deflected by business hours (company time zone) and capacity, redirections and the
/// deflection rules routing into each queue, wait estimates.
struct QueueMenuEngine {
    let configuration: SandboxConfiguration
    let now: Date
    /// Sessions waiting per queue and channel.
    var waiting = WaitingSessions()
    /// What the human agents do: their loads and the last hour's handle times.
    var activity = AgentActivity.Snapshot()

    /// Why a queue cannot take sessions now.
    enum Deflection {
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

    /// The agents of queue `menuID` working now (on shift).
    func activeAgents(onMenu menuID: Int) -> [AgentConfiguration] {
        let timeZone = TimeZone(identifier: company.timeZone) ?? .current
        return (configuration.agents ?? []).filter { $0.menus.contains(menuID) && $0.isOnShift(at: now, in: timeZone) }
    }

    /// The agents of queue `menuID` working now with room for another session (`max_chats`).
    func availableAgents(onMenu menuID: Int) -> [AgentConfiguration] {
        activeAgents(onMenu: menuID).filter { (activity.loads[$0.name] ?? 0) < ($0.maxChats ?? .max) }
    }

    /// The published formula's figures for a session of `channel` on queue `menuID` with
    /// `ahead` sessions of the channel before it (nil: every one waiting, a new session).
    /// Every agent of a queue takes each of its channels, so the channel's agents, the
    /// queue's, and those they have in common are the same agents here.
    func estimator(menuID: Int, _ channel: WaitChannel, ahead: Int? = nil) -> WaitEstimator {
        let active = activeAgents(onMenu: menuID).count
        let queued = ahead ?? (channel == .chat ? waiting.chats[menuID] : waiting.calls[menuID]) ?? 0
        let available = availableAgents(onMenu: menuID).map { WaitEstimator.share(ofQueues: Set($0.menus).count) }.reduce(0, +)
        let handle = activity.averageHandleSeconds[AgentActivity.QueueChannel(menuID: menuID, channel: channel)]
        return WaitEstimator(averageHandleSeconds: handle ?? configuration.handleTimeSeconds ?? 300, activeAgentsInChannel: active,
                             agentsInCommon: active, activeAgentsInQueue: active, queuedAhead: queued, availableAgents: available)
    }

    /// The wait of a new session on `menu`'s `channel`, with the queue's agents logged in
    /// and available; nil when the queue has no such channel. What the Apps API's
    /// `/wait_times` reports for each menu.
    func wait(_ menu: MenuConfiguration, _ channel: WaitChannel) -> ChannelWait? {
        let configured = channel == .chat ? menu.channels?.chat != nil : menu.channels?.voiceCall != nil
        guard configured else { return nil }
        return ChannelWait(seconds: estimator(menuID: menu.id, channel).seconds, loggedInAgents: activeAgents(onMenu: menu.id).count,
                           availableAgents: availableAgents(onMenu: menu.id).count)
    }

    /// The longest wait of a new session on the queue's channels (its capacity's
    /// `wait_threshold_seconds` compares it); 0 for a queue without chat or voice.
    func estimatedWait(_ menu: MenuConfiguration) -> Int {
        WaitChannel.allCases.compactMap { wait(menu, $0)?.seconds }.max() ?? 0
    }

    func isOverCapacity(_ menu: MenuConfiguration) -> Bool {
        guard let capacity = menu.capacity else { return false }
        if let most = capacity.maxWaiting, waiting.total(menu.id) >= most { return true }
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
        if let key, let menu = configuration.allMenus.first(where: { $0.directAccessKeys?.contains(key) == true }) {
            return QueueMenusResponse(menus: [render(menu, language)], isDirectAccess: true, language: language)
        }
        return QueueMenusResponse(menus: visible(configuration.menus ?? []).map { render($0, language) },
                                  isDirectAccess: false, language: language)
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

    /// The wait estimates of a queue's channels (the SDK's `wait_times`).
    func waitTimes(_ menu: MenuConfiguration) -> WaitTimes {
        WaitTimes(chat: wait(menu, .chat)?.seconds, voiceCall: wait(menu, .voiceCall)?.seconds)
    }
}

/// Sessions waiting per queue: queued chats and waiting calls, by menu id.
struct WaitingSessions: Sendable {
    var chats: [Int: Int] = [:]
    var calls: [Int: Int] = [:]

    /// Chats and calls waiting on queue `menuID` together (`capacity.max_waiting`).
    func total(_ menuID: Int) -> Int {
        (chats[menuID] ?? 0) + (calls[menuID] ?? 0)
    }
}
