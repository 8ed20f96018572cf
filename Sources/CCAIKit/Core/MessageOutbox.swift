import Foundation

/// The end user's outgoing messages: sent one at a time, in the order they were written,
/// so that a message written while the platform is unreachable goes out after the ones
/// before it, once. It runs each send once: the send's own call is its one retry loop
/// (``RetryPolicy/message(writtenAt:)``: the same client message id, for
/// ``RetryPolicy/messagePatience`` from when it was written).
final class MessageOutbox: @unchecked Sendable {
    private let lock = NSLock()
    /// The last send queued, until it ends with no other after it.
    private var tail: Task<Void, Never>?
    /// How many sends were queued: the last one's number.
    private var queued = 0

    /// Runs `send` after the messages queued before it, in a task of its own, and tells
    /// `completion` its outcome: nothing else waits meanwhile, and a caller that stops
    /// waiting does not stop the message. Its error is this message's alone, and the next
    /// message still goes. The last send is forgotten once it is done and no other came
    /// after it: a finished task keeps the memory its calls used until it is released,
    /// and an idle chat should hold none.
    func send<Result: Sendable>(_ send: @escaping @Sendable () async throws -> Result,
                                completion: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void) {
        lock.withLock {
            let previous = tail
            queued += 1
            let number = queued
            tail = Task {
                await previous?.value
                let outcome = await Self.outcome(of: send)
                lock.withLock { if queued == number { tail = nil } }
                completion(outcome)
            }
        }
    }

    /// What `send` returns or throws. Out of line, so that the frame of the send's task
    /// keeps no room for what the send's calls pass (the task lives while the message is in
    /// flight, which under load is most of a VU's time).
    @inline(never)
    private static func outcome<Result: Sendable>(of send: @Sendable () async throws -> Result) async
        -> Swift.Result<Result, any Error>
    {
        do {
            return .success(try await send())
        } catch {
            return .failure(error)
        }
    }

    /// ``send(_:completion:)`` for a caller that waits for the outcome.
    func send<Result: Sendable>(_ send: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            self.send(send) { continuation.resume(with: $0) }
        }
    }
}
