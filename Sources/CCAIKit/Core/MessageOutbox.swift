import Foundation

/// The end user's outgoing messages: sent one at a time, in the order they were written,
/// so that a message written while the platform is unreachable goes out after the ones
/// before it, once. It runs each send once: the send's own call is its one retry loop
/// (``RetryPolicy/message(writtenAt:)``: the same client message id, for
/// ``RetryPolicy/messagePatience`` from when it was written).
actor MessageOutbox {
    /// Waits for the last send queued to end, whatever its outcome; nil once it has ended
    /// and no other came after it.
    private var tail: (@Sendable () async -> Void)?
    /// How many sends were queued: the last one's number.
    private var queued = 0

    /// Runs `send` after the messages queued before it, in a task of its own (a caller that
    /// stops waiting does not stop the message); its error is this message's alone, and the
    /// next message still goes. The last send is forgotten once it is done and no other
    /// came after it: a finished task keeps the memory its calls used until it is released,
    /// and an idle chat should hold none.
    func send<Result: Sendable>(_ send: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let previous = tail
        let task = Task {
            await previous?()
            return try await send()
        }
        queued += 1
        let number = queued
        tail = { _ = try? await task.value }
        defer { if queued == number { tail = nil } }
        return try await task.value
    }
}
