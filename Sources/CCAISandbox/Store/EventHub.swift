import Foundation
import LuaRuntime
import Timekeeping

/// Wakes the event streams of an end user when something is published for them. Each
/// user has a version that every publication increments, so that a stream that read the
/// store at version N never sleeps through a publication made after it.
actor EventHub {
    private let clock: any TimeSource
    private var versions: [Int: Int] = [:]
    /// Each user's waiting streams by the order they came in, woken in that order (the
    /// same every run, as a simulation needs).
    private var waiters: [Int: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var lastWaiter = 0

    init(clock: any TimeSource) {
        self.clock = clock
    }

    func version(endUserID: Int) -> Int { versions[endUserID] ?? 0 }

    func notify(endUserID: Int) {
        versions[endUserID, default: 0] += 1
        wake(endUserID: endUserID)
    }

    /// Wakes the user's waiting streams without a publication (one of them was closed).
    func wake(endUserID: Int) {
        let woken = (waiters.removeValue(forKey: endUserID) ?? [:]).sorted { $0.key < $1.key }
        for (_, waiter) in woken { waiter.resume() }
    }

    /// Returns once the user's version passes `seen`, or after `timeout` seconds.
    func wait(endUserID: Int, after seen: Int, timeout: TimeInterval) async {
        guard version(endUserID: endUserID) <= seen else { return }
        lastWaiter += 1
        let id = lastWaiter
        let timer = clock.schedule(after: timeout) { [weak self] in Task { await self?.wake(endUserID: endUserID, id: id) } }
        await withCheckedContinuation { continuation in
            waiters[endUserID, default: [:]][id] = continuation
        }
        timer.cancel()
    }

    private func wake(endUserID: Int, id: Int) {
        waiters[endUserID]?.removeValue(forKey: id)?.resume()
        if waiters[endUserID]?.isEmpty == true { waiters[endUserID] = nil }
    }
}
