@testable import CCAIKit
import CCAIWire
import Foundation
import Testing
import Timekeeping

/// The outbox's patience: retryable failures are retried until it runs out, then the send
/// fails and the next message still goes out.
@Suite struct MessageOutboxTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
        var count: Int { lock.withLock { value } }
    }

    @Test func aMessageGivesUpAfterItsPatienceAndTheNextOneStillGoes() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let outbox = MessageOutbox(patience: 30, clock: clock)
        let attempts = Counter()
        let sending = Task {
            try await outbox.send { () async throws -> Int in
                _ = attempts.next()
                throw CCAIError(code: .unavailable, message: "the platform is down", retryable: true)
            }
        }
        // Waits of 0.25, 0.5, 1, then 2 s while the next attempt is within the 30 s.
        for _ in 0..<17 {
            await clock.waitForTimers()
            clock.advanceToNextTimer()
        }
        do {
            _ = try await sending.value
            Issue.record("a send that never gets through fails")
        } catch let error as CCAIError {
            #expect(error.code == .unavailable)
        }
        #expect(attempts.count == 18)
        #expect(clock.now().timeIntervalSince(start) == 29.75, "the last attempt came before the patience ran out")
        #expect(clock.pendingTimers == 0)
        #expect(try await outbox.send { 42 } == 42, "the queue is not stuck behind the failed message")
    }

    @Test func aFailureThatIsNotRetryableFailsAtOnce() async throws {
        let outbox = MessageOutbox(patience: 30, clock: ManualClock())
        let attempts = Counter()
        await #expect(throws: CCAIError.self) {
            _ = try await outbox.send { () async throws -> Int in
                _ = attempts.next()
                throw CCAIError(code: .conflict, message: "the chat has ended")
            }
        }
        #expect(attempts.count == 1)
    }

    /// Refusals that are not transient are the answer at once, never retried for the
    /// outbox's 30 s (issue 34: a handler's 500 was retried for 30 s, and a quota's 429 after
    /// the transport had given up on it): a quota, a bad argument, a forbidden or missing
    /// thing, a conflict, an internal error. An unreachable platform (502, 503, 504) is.
    @Test(arguments: [(429, "limit_exceeded"), (500, "internal"), (400, "invalid_argument"), (403, "forbidden"),
                      (404, "not_found"), (409, "conflict")])
    func aRefusalThatIsNotTransientFailsAtOnce(status: Int, code: String) async throws {
        let outbox = MessageOutbox(patience: 30, clock: ManualClock())
        let attempts = Counter()
        let refusal = CCAIError(status: status, body: Data(#"{"error":{"code":"\#(code)","message":"no"}}"#.utf8))
        #expect(!refusal.retryable && refusal.code.rawValue == code)
        await #expect(throws: CCAIError.self) {
            _ = try await outbox.send { () async throws -> Int in
                _ = attempts.next()
                throw refusal
            }
        }
        #expect(attempts.count == 1)
        for transient in [502, 503, 504] {
            #expect(CCAIError(status: transient, body: Data()).retryable, "\(transient) is the platform out of reach")
        }
    }
}
