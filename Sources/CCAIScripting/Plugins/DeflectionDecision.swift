import CCAIWire
import LuaRuntime

/// What a `deflection` hook decides (docs/plugins.md): `allow`, `redirect` (`menu_id`),
/// `phone` (`number`), `url` (`url`, `display_name`), `message` (`text`), `voicemail`,
/// `schedule_call` or `email`; any may carry a `message`.
public struct DeflectionDecision: Codable, Equatable, Sendable {
    public static let actions = ["allow", "redirect", "phone", "url", "message", "voicemail", "schedule_call", "email"]

    public var action: String
    public var menuId: Int?
    public var number: String?
    public var url: String?
    public var displayName: String?
    public var text: String?
    public var message: String?
    /// The plugin that decided; nil for the SDK's default.
    public var plugin: String?

    public init(action: String, menuId: Int? = nil, number: String? = nil, url: String? = nil,
                displayName: String? = nil, text: String? = nil, message: String? = nil, plugin: String? = nil) {
        self.action = action
        self.menuId = menuId
        self.number = number
        self.url = url
        self.displayName = displayName
        self.text = text
        self.message = message
        self.plugin = plugin
    }

    /// Checks a hook's answer; the error says what is wrong with it.
    static func parse(_ value: LuaValue, plugin: String) throws -> DeflectionDecision {
        guard let table = value.tableValue else {
            throw PluginLoadError("deflection must return nil or a table, got \(value.typeName)")
        }
        guard let action = table["action"]?.stringValue, actions.contains(action) else {
            throw PluginLoadError("deflection returned action \(table["action"]?.description ?? "nil"); expected one of "
                + actions.joined(separator: ", "))
        }
        func string(_ key: String, required: Bool) throws -> String? {
            guard let value = table[key], !value.isNil else {
                if required { throw PluginLoadError("deflection action '\(action)' needs '\(key)'") }
                return nil
            }
            guard let text = value.stringValue else { throw PluginLoadError("deflection field '\(key)' must be a string") }
            return text
        }
        var decision = DeflectionDecision(action: action, message: try string("message", required: false), plugin: plugin)
        switch action {
        case "redirect":
            guard let id = table["menu_id"]?.integerValue else {
                throw PluginLoadError("deflection action 'redirect' needs an integer 'menu_id'")
            }
            decision.menuId = Int(id)
        case "phone": decision.number = try string("number", required: true)
        case "url":
            decision.url = try string("url", required: true)
            decision.displayName = try string("display_name", required: false)
        case "message": decision.text = try string("text", required: true)
        default: break
        }
        return decision
    }

    /// What the SDK decides when no plugin answers: the queue's redirection, a message
    /// when the channel is deflected, or allow.
    static func sdkDefault(for menu: QueueMenu, channel: String) -> DeflectionDecision {
        if let redirection = menu.redirectionExtra, let target = redirection.menuId {
            return DeflectionDecision(action: "redirect", menuId: target, message: redirection.message)
        }
        let deflectedReason = channel == "voice_call" ? menu.channels?.voiceCall?.deflectedReason
            : menu.channels?.chat?.deflectedReason
        if let reason = deflectedReason {
            let afterHours = menu.settings?.compactMap { $0.afterHours?.message?.text }.first
            let text = reason == "after_hours" ? (afterHours ?? "We are closed right now.")
                : "This queue is not taking new sessions right now."
            return DeflectionDecision(action: "message", text: text)
        }
        return DeflectionDecision(action: "allow")
    }

    /// The decision as Lua sees it.
    var luaValue: LuaValue {
        var table = LuaTable()
        table["action"] = .string(action)
        if let menuId { table["menu_id"] = .integer(Int64(menuId)) }
        if let number { table["number"] = .string(number) }
        if let url { table["url"] = .string(url) }
        if let displayName { table["display_name"] = .string(displayName) }
        if let text { table["text"] = .string(text) }
        if let message { table["message"] = .string(message) }
        if let plugin { table["plugin"] = .string(plugin) }
        return .table(table)
    }
}
