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
