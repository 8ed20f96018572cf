import Foundation

/// A value settled once, by whichever comes first (a signal, a timer, a cancellation);
/// its one waiter gets it, at once if it is settled already. Package access: the router
/// transport (CCAIBridge) waits on its streams and timeouts with it too.
package final class Settlement<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var settled: Value?
    private var waiter: CheckedContinuation<Value, Never>?

    package init() {}

    /// Settles with `value`, unless settled already.
    package func settle(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = lock.withLock {
            guard settled == nil else { return nil }
            settled = value
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: value)
    }

    /// The value, once settled.
    package func value() async -> Value {
        await withCheckedContinuation { continuation in
            let now: Value? = lock.withLock {
                if let settled { return settled }
                waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
