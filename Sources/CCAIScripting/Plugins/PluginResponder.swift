import CCAIKit

/// What the host's automatic answers through plugins work with: the script's SDK
/// instance, the plugins, and where to report what went wrong.
protocol PluginResponder: Sendable {
    var sdk: CCAI { get }
    var plugins: PluginHost { get }
    var logger: ScriptLogger { get }

    init(sdk: CCAI, plugins: PluginHost, logger: ScriptLogger)
}

extension PluginResponder {
    /// A responder for the SDK and logger of a state's bindings.
    init(context: SDKContext, plugins: PluginHost) {
        self.init(sdk: context.sdk, plugins: plugins, logger: context.logger)
    }
}
