import Foundation

/// Back-pressure for a streamed answer (an event stream): the consumer says what it has
/// taken, and the transport stops reading the connection while more than ``highWater``
/// bytes are handed on and not yet taken, until the consumer is down to ``lowWater``. A
/// server that sends faster than the host can use what it sends then waits in its own
/// socket buffers, not in the host's memory. Safe from any thread.
///
/// ```swift
/// let flow = StreamFlow()
/// request.flow = flow                     // the transport asks it before each chunk
/// flow.produced(event.data.utf8.count)    // an event handed on
/// flow.consumed(event.data.utf8.count)    // and taken: reading resumes below low water
/// ```
public final class StreamFlow: @unchecked Sendable {
    /// Bytes handed on and not yet taken past which the transport stops reading (4 MiB).
    public let highWater: Int
    /// Bytes not yet taken at which a stopped transport reads again (1 MiB).
    public let lowWater: Int
    private let lock = NSLock()
    private var pending = 0
    /// Set while the transport is stopped: what starts it again.
    private var resume: (@Sendable () -> Void)?

    public init(highWater: Int = 4 << 20, lowWater: Int = 1 << 20) {
        self.highWater = max(1, highWater)
        self.lowWater = min(max(0, lowWater), self.highWater)
    }

    /// Bytes handed on and not yet taken.
    public var pendingBytes: Int { lock.withLock { pending } }

    /// Whether the transport is stopped, waiting for the consumer.
    public var isPaused: Bool { lock.withLock { resume != nil } }

    /// Counts `bytes` handed on to the consumer.
    public func produced(_ bytes: Int) {
        lock.withLock { pending += bytes }
    }

    /// Counts `bytes` the consumer took; starts a stopped transport again once it is down to
    /// low water.
    public func consumed(_ bytes: Int) {
        let resuming: (@Sendable () -> Void)? = lock.withLock {
            pending = max(0, pending - bytes)
            guard pending <= lowWater, let resume else { return nil }
            self.resume = nil
            return resume
        }
        resuming?()
    }

    /// Asked by the transport before it hands a chunk on: true when the consumer is behind,
    /// and the transport then stops until `resume` is called (once).
    func pauseIfBehind(resume: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard pending > highWater else { return false }
            self.resume = resume
            return true
        }
    }
}
