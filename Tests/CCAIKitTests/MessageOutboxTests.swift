@testable import CCAIKit
import CCAIWire
import Foundation
import Testing

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
        let outbox = MessageOutbox(patience: 0.6)
        let attempts = Counter()
        do {
            _ = try await outbox.send { () async throws -> Int in
                _ = attempts.next()
                throw CCAIError(code: .unavailable, message: "the platform is down", retryable: true)
            }
            Issue.record("a send that never gets through fails")
        } catch let error as CCAIError {
            #expect(error.code == .unavailable)
        }
        #expect(attempts.count >= 2, "retried while patience allowed")
        #expect(try await outbox.send { 42 } == 42, "the queue is not stuck behind the failed message")
    }

    @Test func aFailureThatIsNotRetryableFailsAtOnce() async throws {
        let outbox = MessageOutbox(patience: 30)
        let attempts = Counter()
        await #expect(throws: CCAIError.self) {
            _ = try await outbox.send { () async throws -> Int in
                _ = attempts.next()
                throw CCAIError(code: .conflict, message: "the chat has ended")
            }
        }
        #expect(attempts.count == 1)
    }
}
