@testable import CCAIKit
import CCAIWire
import Foundation
import Testing

/// The outbox keeps the order messages were written in and runs each send once (its call
/// is its one retry loop: OneRetryLoopTests); a failed send is that message's alone.
@Suite struct MessageOutboxTests {
    /// What the sends did, in order.
    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func note(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    @Test func aFailedSendIsTriedOnceAndTheNextOneStillGoes() async throws {
        let outbox = MessageOutbox()
        let journal = Journal()
        await #expect(throws: CCAIError.self) {
            _ = try await outbox.send { () async throws -> Int in
                journal.note("refused")
                throw CCAIError(code: .unavailable, message: "the platform is down", retryable: true)
            }
        }
        #expect(try await outbox.send { 42 } == 42, "the queue is not stuck behind the failed message")
        #expect(journal.all == ["refused"], "the outbox does not retry: the send's call does")
    }
}
