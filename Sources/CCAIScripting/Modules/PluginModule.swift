import CCAIKit
import LuaRuntime
import Timekeeping

/// The `ccai` module of a plugin's state (docs/plugins.md "What a plugin can reach"): the
/// utilities every state has (`log`, `json`, `env`, `uuid`, `now`, `spawn`, `sleep`) and
/// the SDK's services a hook may read: `company.get`, `language.get_language_code`,
/// `queue_menu.get` and `get_wait_times`; and `ccai.apps`, the company's server-side
/// client of the Apps API (it acts as the company's server, with the run's credentials).
/// Nothing that signs in or reads the auth token, changes the end user or the language, or
/// starts, moves or ends the session's chat or its post-session: a hook answers through its
/// return value and the host acts on it.
///
/// ```swift
/// let module = PluginModule.make(environment: [:], logger: logger, sdk: ccai)
/// ```
public enum PluginModule {
    public static func make(environment: [String: String], logger: ScriptLogger, sdk: CCAI?,
                            clock: any TimeSource = SystemClock(), apps: AppsClient? = nil) -> LuaModule {
        var ccai = CCAIModule.make(environment: environment, logger: logger, clock: clock)
        if let sdk { SDKBindings.installReadOnly(sdk, into: &ccai) }
        ccai.module(.lazy(name: "ccai.apps") { AppsBindings.module(apps) })
        return ccai
    }
}
