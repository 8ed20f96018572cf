import Foundation

/// The sandbox's sense of time, injectable so that tests can be "after hours" or make
/// tokens expire.
public protocol SandboxClock: Sendable {
    func now() -> Date
}

/// The real time.
public struct SystemClock: SandboxClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// The real time, shifted so that it started at `start` when the clock was made.
public struct OffsetClock: SandboxClock {
    private let offset: TimeInterval

    public init(start: Date) {
        offset = start.timeIntervalSinceNow
    }

    public func now() -> Date { Date().addingTimeInterval(offset) }
}
