import Foundation
import Timekeeping

/// Requests per end user as token buckets: `burst` at once, then `rate` a second. Safe
/// from any thread (the HTTP server asks it on a request's headers). Buckets that have
/// filled up again are forgotten, so memory follows the active end users only. Its time
/// is the real one (a rate is about requests as they come, whatever the sandbox's clock
/// says), injectable for tests.
///
/// ```swift
/// let limiter = RateLimiter(rate: 10, burst: 40)
/// limiter.retryAfter(endUserID: 7)   // nil: go on; else seconds to wait
/// ```
final class RateLimiter: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rate: Double
    let burst: Double
    private let lock = NSLock()
    private var buckets: [Int: Bucket] = [:]
    private var lastSweep: Double = 0

    private let clock: any Clock

    init(rate: Double, burst: Double, clock: any Clock) {
        self.rate = rate
        self.burst = max(1, burst)
        self.clock = clock
    }

    /// Takes one request from the end user's bucket: nil when there was one, else the
    /// seconds until there is.
    func retryAfter(endUserID: Int) -> Double? {
        let time = clock.now().timeIntervalSince1970
        return lock.withLock {
            sweep(time)
            var bucket = buckets[endUserID] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + max(0, time - bucket.updated) * rate)
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                buckets[endUserID] = bucket
                return (1 - bucket.tokens) / rate
            }
            bucket.tokens -= 1
            buckets[endUserID] = bucket
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
