import Foundation

/// The end user's outgoing messages: sent one at a time, in the order they were written,
/// so that a message written while the platform is unreachable goes out after the ones
/// before it, once. It runs each send once: the send's own call is its one retry loop
/// (``RetryPolicy/message(writtenAt:)``: the same client message id, for
/// ``RetryPolicy/messagePatience`` from when it was written).
actor MessageOutbox {
    private var tail: Task<Void, Never>?

    /// Runs `send` after the messages queued before it; its error is this message's alone,
    /// and the next message still goes. The last send is forgotten once it is done and no
    /// other came after it: a finished task keeps the memory its calls used until it is
    /// released, and an idle chat should hold none.
    func send<Result: Sendable>(_ send: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let previous = tail
        let task = Task {
            await previous?.value
            return try await send()
        }
        let queued = Task { _ = try? await task.value }
        tail = queued
        defer { if tail == queued { tail = nil } }
        return try await task.value
    }
}
