/// One menu's entry of `GET /apps/api/v1/wait_times`, as the public "wait time API" page
/// shows it. Waits are in seconds (the page's worked example: "120 seconds (or 2
/// minutes)"; its field table says minutes, which the example contradicts): nil for a
/// channel the menu does not offer.
public struct AppsWaitTime: Codable, Equatable, Sendable {
    public var menuId: Int
    /// `ivr_menu`, `mobile_menu` or `web_menu`.
    public var menuType: String
    public var chat: Int?
    public var voiceCall: Int?
    /// The menu's path from the root, its names joined with ` / `.
    public var materializedPath: String
    public var loggedInAgents: Int
    public var availableAgents: Int
    /// Agents with the menu's breakthrough skill: the sandbox has none, so always 0.
    public var breakthroughAgents: Int

    enum CodingKeys: String, CodingKey {
        case chat
        case menuId = "menu_id"
        case menuType = "menu_type"
        case voiceCall = "voice_call"
        case materializedPath = "materialized_path"
        case loggedInAgents = "logged_in_agents"
        case availableAgents = "available_agents"
        case breakthroughAgents = "breakthrough_agents"
    }

    public init(menuId: Int, menuType: String, chat: Int?, voiceCall: Int?, materializedPath: String, loggedInAgents: Int,
                availableAgents: Int, breakthroughAgents: Int = 0) {
        self.menuId = menuId
        self.menuType = menuType
        self.chat = chat
        self.voiceCall = voiceCall
        self.materializedPath = materializedPath
        self.loggedInAgents = loggedInAgents
        self.availableAgents = availableAgents
        self.breakthroughAgents = breakthroughAgents
    }

    /// Always encodes both channels, `null` for one the menu does not offer.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(menuId, forKey: .menuId)
        try container.encode(menuType, forKey: .menuType)
        try container.encode(chat, forKey: .chat)
        try container.encode(voiceCall, forKey: .voiceCall)
        try container.encode(materializedPath, forKey: .materializedPath)
        try container.encode(loggedInAgents, forKey: .loggedInAgents)
        try container.encode(availableAgents, forKey: .availableAgents)
        try container.encode(breakthroughAgents, forKey: .breakthroughAgents)
    }
}

/// The menu types `GET /apps/api/v1/wait_times` filters by (`menu_type`), as published.
public enum AppsMenuType: String, CaseIterable, Sendable {
    case ivrMenu = "ivr_menu"
    case mobileMenu = "mobile_menu"
    case webMenu = "web_menu"
}
