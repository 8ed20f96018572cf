import Foundation

/// A value behind a lock, shared between the request tasks and the threads of the
/// sandbox. The same shape as `Synchronization.Mutex` (`withLock` with the value `inout`),
/// on a pthread lock (`NSLock`), which ThreadSanitizer sees: `Mutex` waits on futexes it
/// does not, so it reports the accesses `Mutex` orders as races.
///
/// ```swift
/// let count = LockedState(0)
/// count.withLock { $0 += 1 }
/// ```
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
