import Foundation

/// The tags every sample of one VU carries: its scenario's (`scenario`, and the tags the
/// scenario's options give) and the group it is in (`ccai.group`, k6's path:
/// `group = "::checkout::payment"`). A VU's view of the run's metrics
/// (``ScenarioMetrics/scoped(_:)``) adds them; its checks are filed under the group.
///
/// ```swift
/// let scope = MetricScope(tags: ["scenario": "callers"])
/// let depth = try scope.enter("checkout")     // tags: scenario, group = "::checkout"
/// scope.leave(to: depth)                       // the group's seconds
/// ```
public final class MetricScope: @unchecked Sendable {
    /// The tag that names a sample's group.
    public static let groupTag = "group"
    /// The longest group name, and the deepest nesting.
    public static let maximumGroupNameBytes = 256
    public static let maximumGroupDepth = 32

    /// A group name that cannot be one.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    private let lock = NSLock()
    private var base: [String: String]
    /// The groups entered, outermost first, with when each was entered.
    private var groups: [(name: String, entered: Date)] = []

    public init(tags: [String: String] = [:]) {
        base = tags
    }

    /// Replaces the scenario's tags (a VU made before the options were read joins its scenario).
    public func retag(_ tags: [String: String]) { lock.withLock { base = tags } }

    /// The tags of a sample recorded now.
    public var tags: [String: String] {
        lock.withLock {
            guard !groups.isEmpty else { return base }
            return base.merging([Self.groupTag: Self.path(groups.map(\.name))]) { _, group in group }
        }
    }

    /// Enters group `name` at `now`; returns the depth to leave back to.
    public func enter(_ name: String, at now: Date) throws -> Int {
        guard !name.isEmpty, name.utf8.count <= Self.maximumGroupNameBytes, !name.contains("::") else {
            throw Problem(description: "a group name is 1 to \(Self.maximumGroupNameBytes) bytes without '::'")
        }
        return try lock.withLock {
            guard groups.count < Self.maximumGroupDepth else {
                throw Problem(description: "groups nest at most \(Self.maximumGroupDepth) deep")
            }
            groups.append((name, now))
            return groups.count - 1
        }
    }

    /// Leaves the groups entered past `depth` (those an error skipped too); returns the
    /// path and seconds of the one entered at `depth`, nil when it was left already.
    public func leave(to depth: Int, at now: Date) -> (group: String, seconds: Double)? {
        lock.withLock {
            guard depth >= 0, depth < groups.count else { return nil }
            let left = (Self.path(groups.prefix(depth + 1).map(\.name)), now.timeIntervalSince(groups[depth].entered))
            groups.removeSubrange(depth...)
            return left
        }
    }

    /// Leaves every group: an iteration begins outside any.
    public func leaveAll() { lock.withLock { groups = [] } }

    /// k6's group path: `"::outer::inner"`.
    static func path(_ names: [String]) -> String { names.map { "::" + $0 }.joined() }
}
