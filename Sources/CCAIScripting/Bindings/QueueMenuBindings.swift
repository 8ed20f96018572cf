import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.queue_menu`: `get{ key, language }` -> menus, is_direct_access;
/// `get_wait_times{ menu_id, language }`. The menus answer `menus:find_menu(id)` (the
/// whole tree) and each menu `menu:get_enabled_channels()`, `menu:compose_email()` and
/// `menu:get_deflection_links()` (what the app would open).
enum QueueMenuBindings {
    static let rows: [Binding<QueueMenuService>] = [
        Binding("get", "The queue menu tree (or the queue of a direct access key) and whether the key matched.", get,
                returns: [.named("ccai.QueueMenus"), .model(Bool.self)]),
        Binding("get_wait_times", "Estimated waits of a queue's channels, in seconds.", getWaitTimes,
                returns: [.model(WaitTimes.self)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.queue_menu")
        module.functions(rows) { try SDKBindings.require(ccai.queueMenuService, $0) }
        module.decorate(with: decorator) { lua in
            [lua.makeFunction("ccai.queue_menu.get_enabled_channels", enabledChannels),
             lua.makeFunction("ccai.queue_menu.compose_email", composeEmail),
             lua.makeFunction("ccai.queue_menu.get_deflection_links", deflectionLinks),
             lua.makeFunction("ccai.queue_menu.find_menu") { call in throw LuaErrorValue.invalidArgument(try call.string(1, "message")) }]
        }
        return module
    }

    static func get(_ service: QueueMenuService, _ options: MenuRequest, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, {
            let (menus, direct) = try await service.get(key: options.key, language: options.language)
            return MenusResult(menus: menus, isDirectAccess: direct)
        }, push: { result, output in
            output.push(try LuaEncoder().encode(result.menus))
            output.push(.boolean(result.isDirectAccess))
        })
    }

    static func getWaitTimes(_ service: QueueMenuService, _ options: WaitTimesRequest, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.getWaitTimes(menuId: options.menuId, language: options.language) }
    }

    struct MenusResult: Sendable {
        var menus: [QueueMenu]
        var isDirectAccess: Bool
    }

    /// `ccai.queue_menu.get{ key, language }`: a direct access key, the menus' language.
    struct MenuRequest: BindingArguments {
        static let layout = ArgumentLayout.table("options")
        var key: String?
        var language: String?
    }

    /// `ccai.queue_menu.get_wait_times{ menu_id, language }`, or the menu id alone.
    struct WaitTimesRequest: BindingArguments {
        static let layout = ArgumentLayout.positional("options", field: "menu_id")
        var menuId: Int
        var language: String?
    }

    /// Wraps `ccai.queue_menu.get` so that its results have their methods.
    static let decorator = LuaDecorator("""
        local queue_menu, enabled_channels, compose_email, deflection_links, invalid = ...
        local raw_get = queue_menu.get
        local ipairs, type, math_type, setmetatable = ipairs, type, math.type, setmetatable

        local menu_mt = { __name = "QueueMenu", __index = {
          get_enabled_channels = enabled_channels, compose_email = compose_email, get_deflection_links = deflection_links } }
        local function attach(menu)
          setmetatable(menu, menu_mt)
          if menu.children then for _, child in ipairs(menu.children) do attach(child) end end
        end
        local function find(menus, id)
          for _, menu in ipairs(menus) do
            if menu.id == id then return menu end
            if menu.children then
              local found = find(menu.children, id)
              if found then return found end
            end
          end
        end
        local menus_mt = { __name = "QueueMenus", __index = {
          find_menu = function(self, id)
            if type(self) ~= "table" then
              invalid("find_menu is a method: call it with a colon, menus:find_menu(" .. tostring(self) .. ")")
            end
            if math_type(id) ~= "integer" then
              invalid("bad argument #1 'id' to 'find_menu' (integer expected, got " .. (math_type(id) or type(id)) .. ")")
            end
            return find(self, id)
          end,
        } }
        queue_menu.get = function(...)
          local menus, direct = raw_get(...)
          for _, menu in ipairs(menus) do attach(menu) end
          return setmetatable(menus, menus_mt), direct
        end
        """, chunkName: "=ccai.queue_menu")

    /// `menu:get_enabled_channels()`: `{ type = "chat" }`, `{ type = "instant_call" }`,
    /// `{ type = "schedule_call", deflection_type = ... }`, `{ type = "email", address = ... }`,
    /// `{ type = "external_deflection", url = ..., display_name = ... }`.
    static func enabledChannels(_ call: LuaCall) throws -> LuaReturn {
        let menu = try menu(call, method: "get_enabled_channels")
        return call.returning(.array(menu.getEnabledChannels().map(luaValue)))
    }

    /// `menu:compose_email()`: `{ to, body, url }`, the `mailto:` the app would open, or nil.
    static func composeEmail(_ call: LuaCall) throws -> LuaReturn {
        let draft = try menu(call, method: "compose_email").composeEmail()
        return call.returning(try draft.map { try LuaEncoder().encode($0) } ?? .nil)
    }

    /// `menu:get_deflection_links()`: `{ { url, display_name, enabled = true } }`, the
    /// buttons the app shows.
    static func deflectionLinks(_ call: LuaCall) throws -> LuaReturn {
        call.returning(try LuaEncoder().encode(try menu(call, method: "get_deflection_links").getDeflectionLinks()))
    }

    /// The menu a method is called on (`menu:method()`), decoded.
    private static func menu(_ call: LuaCall, method: String) throws -> QueueMenu {
        guard !call.isNil(1) else {
            throw call.argumentError(1, "self", "\(method) is a method: call it with a colon, menu:\(method)()")
        }
        do {
            return try LuaDecoder().decode(QueueMenu.self, from: .table(try call.table(1, "self")))
        } catch let error as DecodingError {
            throw call.argumentError(1, "self", "a queue menu expected (\(SDKBindings.describe(error)))")
        }
    }

    static func luaValue(_ channel: ChannelType) -> LuaValue {
        switch channel {
        case .chat: return ["type": "chat"]
        case .instantCall: return ["type": "instant_call"]
        case .scheduleCall(let deflection):
            var value: LuaValue = ["type": "schedule_call"]
            if let deflection, case .table(var table) = value {
                table["deflection_type"] = .string(deflection.rawValue)
                value = .table(table)
            }
            return value
        case .email(let address):
            return address.map { ["type": "email", "address": .string($0)] } ?? ["type": "email"]
        case .externalDeflection(let url, let displayName):
            return ["type": "external_deflection", "url": .string(url), "display_name": .string(displayName)]
        }
    }
}
