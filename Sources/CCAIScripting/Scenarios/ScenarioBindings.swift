import CCAIKit
import Foundation
import LuaRuntime

/// What a scenario adds to a script's `ccai`: `check`, `group`, `metrics` and `data`, said once for
/// the states that run scripts and for the stubs and reference that describe them.
enum ScenarioBindings {
    static func install(into module: inout LuaModule, metrics: ScenarioMetrics?, data: ScenarioData, folder: String?) {
        CheckBindings.install(metrics, into: &module)
        GroupBindings.install(metrics, into: &module)
        module.module(.lazy(name: "ccai.metrics") { MetricBindings.module(metrics) })
        module.module(.lazy(name: "ccai.data") { DataBindings.module(data, folder: folder) })
    }
}

extension CCAIModule {
    /// The whole `ccai` module as a script sees it, with no platform behind it: what the
    /// LuaLS stubs and the reference describe.
    static var documented: LuaModule {
        var module = make(environment: [:], logger: StreamLogger(minimumLevel: .error), sdk: SDKContext(sdk: CCAI()))
        module.module(PluginBindings.module(nil, sdk: nil))
        ScenarioBindings.install(into: &module, metrics: nil, data: ScenarioData(), folder: nil)
        return module
    }
}
