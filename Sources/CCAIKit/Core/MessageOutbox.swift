import CCAIWire
import Foundation
import Timekeeping

/// The end user's outgoing messages: sent one at a time, in the order they were written,
/// each retried with the same client message id while the platform is unreachable, so a
/// message written offline goes out once when the network is back. It is its messages'
/// one retry loop (``RetryPolicy/messagePatience``): their requests skip the transport's.
actor MessageOutbox {
    /// How long a message waits for the platform before its send fails.
    let patience: TimeInterval
    private let clock: any TimeSource
    private var tail: Task<Void, Never>?

    init(patience: TimeInterval, clock: any TimeSource) {
        self.patience = patience
        self.clock = clock
    }

    /// Runs `attempt` after the messages queued before it, again (after 0.25 s, doubling
    /// up to 2 s) for as long as it fails with a retryable error and `patience` allows.
    func send<Result: Sendable>(_ attempt: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let previous = tail
        let patience = patience, clock = clock
        let task = Task {
            await previous?.value
            let deadline = clock.now().addingTimeInterval(patience)
            var delay: TimeInterval = 0.25
            while true {
                do {
                    return try await attempt()
                } catch let error as any SDKError where error.retryable && clock.now().addingTimeInterval(delay) < deadline {
                    try await clock.sleep(for: delay)
                    delay = min(delay * 2, 2)
                }
            }
        }
        tail = Task { _ = try? await task.value }
        return try await task.value
    }
}
