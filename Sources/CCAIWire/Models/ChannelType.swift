/// A way to contact a queue, as `QueueMenu.getEnabledChannels()` lists them.
public enum ChannelType: Hashable, Sendable {
    case chat
    case instantCall
    case scheduleCall(deflectionType: DeflectionType?)
    case email(address: String?)
    case externalDeflection(url: String, displayName: String)
}

extension QueueMenu {
    /// The channels a user can use now: chat and instant calls unless deflected, scheduled
    /// calls when enabled (with the deflection that applies), e-mail, and one entry per
    /// enabled external link.
    public func getEnabledChannels() -> [ChannelType] {
        guard let channels else { return [] }
        var result: [ChannelType] = []
        if let chat = channels.chat, chat.enabled != false, chat.deflected != true { result.append(.chat) }
        if let voice = channels.voiceCall {
            if voice.instantEnabled == true, voice.deflected != true { result.append(.instantCall) }
            if voice.scheduleEnabled == true {
                let deflection = redirectionExtra?.deflectionType
                    ?? voice.scheduleDeflectionType.flatMap(DeflectionType.init(rawValue:))
                result.append(.scheduleCall(deflectionType: voice.deflected == true ? deflection : nil))
            }
        }
        if let email = channels.email { result.append(.email(address: email.email)) }
        for link in getDeflectionLinks() { result.append(.externalDeflection(url: link.url, displayName: link.displayName)) }
        return result
    }
}

extension Array where Element == QueueMenu {
    /// The menu with `id` anywhere in the tree (roots first, then descendants in order).
    public func findMenu(byId id: Int) -> QueueMenu? {
        for menu in self {
            if menu.id == id { return menu }
            if let found = (menu.children ?? []).findMenu(byId: id) { return found }
        }
        return nil
    }
}
