import Foundation

/// The I-th of N slices of a run (`--segment I/N`), k6's execution segments striped: VU
/// `n` belongs to slice `(n - 1) % N + 1`, iteration `k` of a shared-iterations run to the
/// `(k - 1) % M + 1`-th of the M slices that have VUs, and arrival `k` of an open-model
/// run to slice `(k - 1) % N + 1`. Every slice computes the same split, so the slices of
/// one N together are exactly the whole run, whatever N; VU numbers (and so end users,
/// `vu-<n>`) stay those of the whole run, distinct across the processes.
///
/// ```swift
/// let second = try ScenarioSegment("2/3")
/// second.vus(upTo: 10)                         // [2, 5, 8]
/// second.iterations(of: 100, vus: 10)          // 33
/// ```
public struct ScenarioSegment: Sendable, Equatable, CustomStringConvertible {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// From 1 to ``count``.
    public let index: Int
    public let count: Int

    /// The whole run: one slice of one.
    public static let whole = ScenarioSegment(uncheckedIndex: 1, count: 1)

    /// The most slices a run may be cut into.
    public static let maximumCount = 100_000

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Reads `"I/N"`, 1 <= I <= N.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
            count >= 1, count <= Self.maximumCount, index >= 1, index <= count
        else {
            throw Problem(message: "--segment: I/N expected, with 1 <= I <= N <= \(Self.maximumCount) (such as 2/3), got '\(text)'")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }
    public var isWhole: Bool { count == 1 }

    /// The numbers of this slice's VUs among VUs 1...`total`.
    public func vus(upTo total: Int) -> [Int] {
        guard total >= index else { return [] }
        return Array(stride(from: index, through: total, by: count))
    }

    /// Whether VU `number` is this slice's.
    public func owns(vu number: Int) -> Bool { (number - 1) % count + 1 == index }

    /// Whether arrival `number` (from 1) of an open-model run is this slice's.
    public func owns(arrival number: Int) -> Bool { (number - 1) % count + 1 == index }

    /// This slice as seen by a scenario whose VUs are numbered after `offset` others': its
    /// VU `k` is the run's VU `offset + k`, owned by the same slice.
    public func shifted(by offset: Int) -> ScenarioSegment {
        ScenarioSegment(uncheckedIndex: ((index - 1 - offset) % count + count) % count + 1, count: count)
    }

    /// This slice's share of `total` iterations shared by `vus` VUs: striped over the
    /// slices that have VUs (the first min(N, vus)); none when this one has no VU.
    public func iterations(of total: Int, vus: Int) -> Int {
        let withVUs = min(count, vus)
        guard index <= withVUs, total >= index else { return 0 }
        return (total - index) / withVUs + 1
    }
}
