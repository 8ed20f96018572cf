import Foundation

/// Where images are compressed: threads of their own, at most one per processor, never
/// Swift's cooperative pool. Re-encoding a photo holds a thread for up to seconds of
/// libvips work, and the pool's few threads (one per processor) serve every other task of
/// the process: the SDK's other calls, a script's coroutines, the in-process sandbox.
/// Compressions beyond the processors wait their turn without holding a thread.
enum CompressionQueue {
    private static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "ccai.image-compression"
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
        queue.qualityOfService = .userInitiated
        return queue
    }()

    /// What `work` returns or throws, run on the queue.
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.addOperation { continuation.resume(with: Result(catching: work)) }
        }
    }
}
