import CCAISandbox
import Foundation

/// A webhook transport a test scripts: each POST is recorded and announced on `posted`,
/// and answered with the next of `answers` (204 once they run out).
final class FakeWebhookTransport: WebhookTransport, @unchecked Sendable {
    enum Answer: Sendable {
        /// An HTTP status.
        case status(Int)
        /// No answer: the connection was refused.
        case refused
        /// No answer until the attempt is cancelled (its timeout).
        case hang
        /// The status the test sends into the gate, when it does.
        case gate(AsyncStream<Int>)
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    /// An `NSLock`, not a `Mutex`: ThreadSanitizer sees through a pthread mutex, and took
    /// two posts under a `Mutex` for a race.
    private let lock = NSLock()
    private var answers: [Answer]
    private var recorded: [WebhookRequest] = []
    let posted: AsyncStream<WebhookRequest>
    private let announce: AsyncStream<WebhookRequest>.Continuation

    init(_ answers: [Answer] = []) {
        self.answers = answers
        (posted, announce) = AsyncStream.makeStream()
    }

    var requests: [WebhookRequest] { lock.withLock { recorded } }

    func post(_ request: WebhookRequest) async throws -> Int {
        lock.withLock { recorded.append(request) }
        announce.yield(request)
        let answer = lock.withLock { answers.isEmpty ? Answer.status(204) : answers.removeFirst() }
        switch answer {
        case .status(let status):
            return status
        case .refused:
            throw Refused()
        case .hang:
            // Cancellation (the attempt's timeout) ends it at once; an hour is "never" here.
            try await Task.sleep(nanoseconds: 3_600_000_000_000)
            return 200
        case .gate(let statuses):
            for await status in statuses { return status }
            throw CancellationError()
        }
    }
}

extension AsyncStream {
    /// The next element, or nil once the stream has ended.
    func next() async -> Element? {
        var iterator = makeAsyncIterator()
        return await iterator.next()
    }
}
