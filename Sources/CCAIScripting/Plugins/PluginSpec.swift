import CCAIWire
import LuaRuntime

/// What a plugin file returned (docs/plugins.md), checked.
struct PluginSpec: Sendable {
    var name: String
    var version: String?
    var priority: Double
    /// Hooks present as functions: `deflection`, `post_session`, `survey`, `csat`,
    /// `on_load`, `on_unload`.
    var hooks: Set<String>
    /// Smart action types (or `"*"`) with a handler.
    var smartActions: Set<String>
    /// Form ids / external form ids (or `"*"`) with a handler.
    var forms: Set<String>
    /// The keys of `smart_actions` and `forms` as the plugin wrote them (`forms.10` is the
    /// integer 10), to call the handlers by.
    var originalKeys: [String: LuaValue] = [:]
    /// The plugin's own `config` table (its defaults), handed to hooks as `ctx.config`.
    var config: LuaValue = .table(LuaTable())

    static let functionHooks = ["on_load", "on_unload", "deflection", "post_session", "post_session_opt_in", "survey", "csat"]
    static let knownFields = Set(functionHooks + ["name", "version", "priority", "smart_actions", "forms", "config"])

    /// Reads the spec's shape (functions appear as `"function"`); the errors say which
    /// field is wrong.
    static func parse(_ shape: LuaValue) -> Result<PluginSpec, PluginLoadError> {
        guard let table = shape.tableValue else {
            return .failure(PluginLoadError("the plugin must return a table (its spec), got \(shape.typeName)"))
        }
        let unknown = table.fields.keys.compactMap(\.stringValue).filter { !knownFields.contains($0) }.sorted()
        if !unknown.isEmpty {
            return .failure(PluginLoadError(unknown.map { "unknown field '\($0)'" + Suggestion.didYouMean($0, among: knownFields) }
                .joined(separator: "; ") + "; a spec has " + knownFields.sorted().joined(separator: ", ")))
        }
        guard let name = table["name"]?.stringValue, !name.isEmpty else {
            return .failure(PluginLoadError("name: a non-empty string is required"))
        }
        var spec = PluginSpec(name: name, version: nil, priority: 0, hooks: [], smartActions: [], forms: [])
        if let config = table["config"], !config.isNil {
            guard case .table = config else { return .failure(PluginLoadError("config: table expected, got \(config.typeName)")) }
            spec.config = config
        }
        if let version = table["version"], !version.isNil {
            guard let text = version.stringValue else { return .failure(PluginLoadError("version: string expected")) }
            spec.version = text
        }
        if let priority = table["priority"], !priority.isNil {
            guard let number = priority.doubleValue else { return .failure(PluginLoadError("priority: number expected")) }
            spec.priority = number
        }
        for hook in functionHooks {
            guard let value = table[hook], !value.isNil else { continue }
            guard value == "function" else {
                return .failure(PluginLoadError("\(hook): function expected, got \(value.typeName)"))
            }
            spec.hooks.insert(hook)
        }
        for (field, keyPath) in [("smart_actions", \PluginSpec.smartActions), ("forms", \PluginSpec.forms)] {
            guard let value = table[field], !value.isNil else { continue }
            guard let handlers = value.tableValue else {
                return .failure(PluginLoadError("\(field): a table of functions expected, got \(value.typeName)"))
            }
            for (key, handler) in handlers.entries {
                guard handler == "function" else {
                    return .failure(PluginLoadError("\(field).\(key): function expected, got \(handler.typeName)"))
                }
                spec[keyPath: keyPath].insert(key.description)
                spec.originalKeys["\(field).\(key.description)"] = key
            }
        }
        return .success(spec)
    }
}

/// Why a plugin did not load (or a hook failed).
struct PluginLoadError: Error, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
