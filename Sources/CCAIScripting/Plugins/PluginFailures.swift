import Foundation

/// Where a state hears of the plugin hooks it set off that failed: a hook that raised, timed
/// out, or answered what could not be used (the host then goes on with the default answer).
/// The scenario runner counts each in `plugin_errors` (tagged `plugin` and `hook`), and with
/// `strict_plugins` fails the iteration that set it off: the VU takes its first failure
/// when the iteration ends.
///
/// ```swift
/// let failures = PluginFailures { failure in metrics.record(.pluginErrors, 1, tags: failure.tags) }
/// await host.answer(.forms, key: "10", argument: form, context: [:], reporting: failures)
/// failures.takeFirst()   // the first failure since the last take, if any
/// ```
public final class PluginFailures: @unchecked Sendable {
    /// One hook that failed.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public var plugin: String
        /// The hook's name in the plugin's spec: `smart_actions`, `forms`, `deflection`,
        /// `post_session`, `post_session_opt_in`, `survey` or `csat`.
        public var hook: String
        public var message: String

        public init(plugin: String, hook: String, message: String) {
            self.plugin = plugin
            self.hook = hook
            self.message = message
        }

        /// The tags of its `plugin_errors` sample.
        public var tags: [String: String] { ["plugin": plugin, "hook": hook] }
        public var description: String { "plugin '\(plugin)' failed in its \(hook) hook: \(message)" }
    }

    private let lock = NSLock()
    private var first: Failure?
    private let onFailure: @Sendable (Failure) -> Void

    /// `onFailure` hears of every failure as it is reported.
    public init(onFailure: @escaping @Sendable (Failure) -> Void = { _ in }) {
        self.onFailure = onFailure
    }

    func report(_ failure: Failure) {
        onFailure(failure)
        lock.withLock { first = first ?? failure }
    }

    /// The first failure reported since the last take; nil when there was none.
    public func takeFirst() -> Failure? {
        lock.withLock {
            defer { first = nil }
            return first
        }
    }
}
