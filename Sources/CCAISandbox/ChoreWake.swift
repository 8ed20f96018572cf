/// How the store wakes a chore that waits long while it has nothing to do: a chore that
/// found no scheduled call waits an hour, and a booking wakes it at once, so that idle
/// simulated days cost a few runs of it, not one every 5 seconds.
///
/// ```swift
/// store.bookings.onWake { restartTheChore() }   // the sandbox, once
/// store.bookings.wake()                          // the store, on every booking
/// ```
final class ChoreWake: Sendable {
    private let action = LockedState<(@Sendable () -> Void)?>(nil)

    /// What waking does (replacing what it did before).
    func onWake(_ action: @escaping @Sendable () -> Void) {
        self.action.withLock { $0 = action }
    }

    func wake() {
        action.withLock { $0 }?()
    }
}
