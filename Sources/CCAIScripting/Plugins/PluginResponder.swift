import CCAIKit

/// What the host's automatic answers through plugins work with: the script's SDK
/// instance, the plugins, and where to report what went wrong (the log, and the state's
/// ``PluginFailures``).
protocol PluginResponder: Sendable {
    var sdk: CCAI { get }
    var plugins: PluginHost { get }
    var logger: ScriptLogger { get }
    var failures: PluginFailures? { get }

    init(sdk: CCAI, plugins: PluginHost, logger: ScriptLogger, failures: PluginFailures?)
}

extension PluginResponder {
    /// A responder for the SDK, logger and plugin failures of a state's bindings.
    init(context: SDKContext, plugins: PluginHost) {
        self.init(sdk: context.sdk, plugins: plugins, logger: context.logger, failures: context.pluginFailures)
    }
}
