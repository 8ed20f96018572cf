import CCAIWire
import Foundation
import Timekeeping

/// Requests per key (an end user, a company key, an identifier signing in) as token
/// buckets: `burst` at once, then `rate` a second. Safe from any thread (the HTTP server
/// asks it on a request's headers). Buckets that have filled up again are forgotten, so
/// memory follows the active keys only. Its time is injectable for tests.
///
/// ```swift
/// let limiter = RateLimiter<Int>(rate: 10, burst: 40, clock: SystemClock())
/// limiter.retryAfter(7)   // nil: go on; else seconds to wait
/// ```
final class RateLimiter<Key: Hashable>: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rate: Double
    let burst: Double
    private let lock = NSLock()
    private var buckets: [Key: Bucket] = [:]
    private var lastSweep: Double = 0

    private let clock: any TimeSource

    init(rate: Double, burst: Double, clock: any TimeSource) {
        self.rate = rate
        self.burst = max(1, burst)
        self.clock = clock
    }

    /// Takes one request from the key's bucket (or, when not `taking`, only looks): nil
    /// when there was one, else the seconds until there is.
    func retryAfter(_ key: Key, taking: Bool = true) -> Double? {
        let time = clock.now().timeIntervalSince1970
        return lock.withLock {
            sweep(time)
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + max(0, time - bucket.updated) * rate)
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return (1 - bucket.tokens) / rate
            }
            if taking { bucket.tokens -= 1 }
            buckets[key] = bucket
            return nil
        }
    }

    /// Forgets the buckets that are full again (lock held), at most once per refill time.
    private func sweep(_ time: Double) {
        let refill = burst / rate
        guard time - lastSweep > refill else { return }
        lastSweep = time
        buckets = buckets.filter { time - $0.value.updated < refill }
    }
}

extension Double {
    /// A rate as a configuration says it: `10` for 10.0, `0.5` for 0.5.
    var limitText: String { Checked.integer(self).map(String.init) ?? String(self) }
}
