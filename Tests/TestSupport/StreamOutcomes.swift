import CCAIKit
import Foundation

/// What an opened stream's completion was told (``HTTPTransport/open(_:onChunk:completion:)``),
/// every time it was told, with a wait for the first.
public final class StreamOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Result<HTTPClientResponse, Error>] = []
    private let told = Latch()

    public init() {}

    /// The completion to hand `open`.
    public var completion: @Sendable (Result<HTTPClientResponse, Error>) -> Void {
        { [self] outcome in
            lock.withLock { outcomes.append(outcome) }
            Task { await told.open() }
        }
    }

    /// Every outcome told so far.
    public var all: [Result<HTTPClientResponse, Error>] { lock.withLock { outcomes } }

    /// The first outcome, once it is told.
    public func first() async -> Result<HTTPClientResponse, Error> {
        await told.wait()
        return lock.withLock { outcomes[0] }
    }
}
