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

    /// Refusals that are not transient are the answer at once, never retried for the
    /// outbox's 30 s (issue 34: a handler's 500 was retried for 30 s, and a quota's 429 after
    /// the transport had given up on it): a quota, a bad argument, a forbidden or missing
    /// thing, a conflict, an internal error. An unreachable platform (502, 503, 504) is.
    @Test(arguments: [(429, "limit_exceeded"), (500, "internal"), (400, "invalid_argument"), (403, "forbidden"),
                      (404, "not_found"), (409, "conflict")])
    func aRefusalThatIsNotTransientFailsAtOnce(status: Int, code: String) async throws {
        let outbox = MessageOutbox()
        let journal = Journal()
        let refusal = CCAIError(status: status, body: Data(#"{"error":{"code":"\#(code)","message":"no"}}"#.utf8))
        #expect(!refusal.retryable && refusal.code.rawValue == code)
        await #expect(throws: CCAIError.self) {
            _ = try await outbox.send { () async throws -> Int in
                journal.note(code)
                throw refusal
            }
        }
        #expect(journal.all == [code])
        for transient in [502, 503, 504] {
            #expect(CCAIError(status: transient, body: Data()).retryable, "\(transient) is the platform out of reach")
        }
    }

    /// Messages told by completion go one at a time in the order written, each outcome told
    /// once, with no task waiting for them: the second starts only once the first is done.
    @Test(.timeLimit(.minutes(1))) func sendsToldByCompletionGoInOrderOneAtATime() async throws {
        let outbox = MessageOutbox()
        let journal = Journal()
        let firstStarted = AsyncStream<Void>.makeStream()
        let firstMayEnd = AsyncStream<Void>.makeStream()
        let allTold = AsyncStream<Void>.makeStream()
        for number in 1...3 {
            outbox.send({ () async throws -> Int in
                journal.note("start \(number)")
                if number == 1 {
                    firstStarted.continuation.finish()
                    for await _ in firstMayEnd.stream { break }
                }
                if number == 2 { throw CCAIError(code: .conflict, message: "no") }
                journal.note("end \(number)")
                return number
            }, completion: { outcome in
                journal.note("told \(number) " + ((try? outcome.get()).map(String.init) ?? "error"))
                if number == 3 { allTold.continuation.finish() }
            })
        }
        for await _ in firstStarted.stream {}
        #expect(journal.all == ["start 1"], "the second waits for the first")
        firstMayEnd.continuation.yield()
        for await _ in allTold.stream {}
        #expect(journal.all == ["start 1", "end 1", "told 1 1", "start 2", "told 2 error", "start 3", "end 3", "told 3 3"])
    }
}

