/// The budgets of one Lua state. Zero means unlimited.
///
/// The instruction and wall-clock budgets apply to each run between yields (a task runs
/// until it finishes or suspends on an async call); exceeding either kills the state for
/// good: no `pcall` can swallow the kill.
///
/// ```swift
/// let lua = try LuaState(limits: LuaLimits(memoryBytes: 8 << 20, instructions: 1_000_000))
/// ```
public struct LuaLimits: Sendable, Equatable {
    /// The most memory the state may allocate, in bytes (default 64 MiB).
    public var memoryBytes: Int
    /// Lua VM instructions allowed between two yields (default 200 million).
    public var instructions: Int
    /// Seconds of wall-clock time allowed between two yields (default 10).
    public var seconds: Double
    /// How many instructions run between two budget checks (default 1,000).
    public var checkInterval: Int
    /// The budget the state shares with others (a run's VUs), if any: the state joins it
    /// when it is made (changing it later has no effect on that state).
    public var pool: LuaMemoryPool?

    public init(memoryBytes: Int = 64 << 20, instructions: Int = 200_000_000, seconds: Double = 10,
                checkInterval: Int = 1_000) {
        self.memoryBytes = memoryBytes
        self.instructions = instructions
        self.seconds = seconds
        self.checkInterval = checkInterval
    }

    /// The most bytes of events the state keeps for a later `wait_for` that no one took:
    /// a quarter of ``memoryBytes`` (16 MiB by default), 256 MiB without a memory limit. They
    /// count in the state's memory; past it the oldest are dropped and counted.
    public var unclaimedEventBytes: Int { memoryBytes > 0 ? max(memoryBytes / 4, 1) : 256 << 20 }

    /// No budgets at all (for trusted code and benchmarks).
    public static let unlimited = LuaLimits(memoryBytes: 0, instructions: 0, seconds: 0)

    /// `67108864` -> `"64 MiB"`, `1500` -> `"1500 bytes"`.
    static func formatBytes(_ bytes: Int) -> String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return "\(bytes) bytes"
    }
}
