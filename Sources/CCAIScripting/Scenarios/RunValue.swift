import Foundation

/// A value of a run that is known only once the run has begun (its seed and its VUs' Lua
/// budget once the options are read, the file to call `handle_summary` from, what stopped
/// it over its memory, the dashboard a run serves), set and read from any thread.
///
/// ```swift
/// let seed = RunValue<RandomSeed>()
/// seed.value = resolved          // when the options are read
/// let drawn = seed.value ?? fallback
/// ```
public final class RunValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    public init() {}

    public var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
