import CLuaShim

/// A memory budget several Lua states share: the bytes their Lua code may hold together (a
/// run's VUs, within `options.max_memory`), counted by each state's allocator. An
/// allocation past it is refused as one past a state's own limit is (`not enough memory`
/// in the state that asked), and ``wasExceeded`` tells the owner at once. A state joins
/// the pool of the ``LuaLimits`` it is made with, for its whole life.
///
/// ```swift
/// let pool = LuaMemoryPool(limitBytes: 512 << 20)
/// var limits = LuaLimits()
/// limits.pool = pool
/// let state = try LuaState(limits: limits)
/// ```
public final class LuaMemoryPool: @unchecked Sendable, Equatable {
    let pointer: UnsafeMutablePointer<lrt_pool>

    /// A pool of at most `limitBytes` (0: unlimited, counted only).
    public init(limitBytes: Int) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: lrt_pool(used: 0, limit: size_t(max(0, limitBytes)), exceeded: 0))
    }

    deinit { pointer.deallocate() }

    /// The most bytes the states may hold together.
    public var limitBytes: Int { Int(pointer.pointee.limit) }

    /// The bytes the states hold together now.
    public var usedBytes: Int { Int(lrt_pool_used(pointer)) }

    /// Whether an allocation was refused for want of room in the pool.
    public var wasExceeded: Bool { lrt_pool_exceeded(pointer) != 0 }

    public static func == (lhs: LuaMemoryPool, rhs: LuaMemoryPool) -> Bool { lhs === rhs }

    /// Has the process map blocks of 1 MiB or more (a state's large strings and buffers)
    /// for themselves and give them back to the system when freed, so that what states
    /// free leaves the resident set a run's budget measures (`lrt_map_large_blocks`). Once,
    /// at the start of the process.
    public static func mapLargeBlocks() { lrt_map_large_blocks(1 << 20) }
}
