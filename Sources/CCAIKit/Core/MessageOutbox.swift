import CCAIWire
import Foundation

/// The end user's outgoing messages: sent one at a time, in the order they were written,
/// each retried with the same client message id while the platform is unreachable, so a
/// message written offline goes out once when the network is back. It is its messages'
/// one retry loop (``RetryPolicy/messagePatience``): their requests skip the transport's.
actor MessageOutbox {
    /// How long a message waits for the platform before its send fails.
    let patience: TimeInterval
    private var tail: Task<Void, Never>?

    init(patience: TimeInterval) {
        self.patience = patience
    }

    /// Runs `attempt` after the messages queued before it, again (after 0.25 s, doubling
    /// up to 2 s) for as long as it fails with a retryable error and `patience` allows.
    func send<Result: Sendable>(_ attempt: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let previous = tail
        let patience = patience
        let task = Task {
            await previous?.value
            let deadline = Date().addingTimeInterval(patience)
            var delay: TimeInterval = 0.25
            while true {
                do {
                    return try await attempt()
                } catch let error as CCAIError where error.retryable && Date().addingTimeInterval(delay) < deadline {
                    try await Task.sleep(nanoseconds: Checked.nanoseconds(seconds: delay))
                    delay = min(delay * 2, 2)
                }
            }
        }
        tail = Task { _ = try? await task.value }
        return try await task.value
    }
}
