import Foundation

/// What a run did over time, for the charts of the HTML report: by slice of time, the VUs
/// taking part, the iterations that ended and failed, the embedded sandbox's queue and
/// busy agents, and digests of the chat waits, message round trips and first responses. Slices start at one second; when a run outlasts
/// ``maximumSlices`` of them they double in length (neighbours merged), so a long run
/// keeps at most that many.
///
/// ```swift
/// var timeline = Timeline()
/// timeline.record(.iterations, 1, at: start.addingTimeInterval(2.5))
/// timeline.slices[2].iterations   // 1
/// ```
public struct Timeline: Sendable, Equatable {
    public struct Slice: Sendable, Equatable {
        /// The last `vus` sample in the slice; nil when none came.
        public var vus: Double?
        /// The last `queue_length` and `agents_busy` samples in the slice; nil when none came.
        public var queueLength: Double?
        public var agentsBusy: Double?
        public var iterations = 0
        public var failedIterations = 0
        public var roundTrip = TrendDigest()
        public var firstResponse = TrendDigest()
        public var chatWait = TrendDigest()

        mutating func merge(_ later: Slice) {
            vus = later.vus ?? vus
            queueLength = later.queueLength ?? queueLength
            agentsBusy = later.agentsBusy ?? agentsBusy
            chatWait.merge(later.chatWait)
            iterations += later.iterations
            failedIterations += later.failedIterations
            roundTrip.merge(later.roundTrip)
            firstResponse.merge(later.firstResponse)
        }
    }

    public static let maximumSlices = 1_000

    /// When the first slice begins (the first sample); nil before any.
    public private(set) var origin: Date?
    /// Seconds per slice.
    public private(set) var sliceSeconds = 1.0
    public private(set) var slices: [Slice] = []

    public init() {}

    /// The metrics the timeline follows.
    static let followed: Set<BuiltInMetric> = [.vus, .iterations, .iterationFailed, .messageRoundTrip, .chatFirstResponse, .chatWait,
                                               .queueLength, .agentsBusy]

    mutating func record(_ metric: BuiltInMetric, _ value: Double, at time: Date) {
        guard Self.followed.contains(metric) else { return }
        let origin = self.origin ?? time
        self.origin = origin
        let offset = Swift.max(0, time.timeIntervalSince(origin))
        var index = Int(Swift.min(offset / sliceSeconds, Double(Int32.max)))
        while index >= Self.maximumSlices {
            coarsen()
            index = Int(Swift.min(offset / sliceSeconds, Double(Int32.max)))
        }
        if slices.count <= index { slices.append(contentsOf: repeatElement(Slice(), count: index + 1 - slices.count)) }
        switch metric {
        case .vus: slices[index].vus = value
        case .iterations: slices[index].iterations += 1
        case .iterationFailed where value != 0: slices[index].failedIterations += 1
        case .messageRoundTrip: slices[index].roundTrip.add(value)
        case .chatFirstResponse: slices[index].firstResponse.add(value)
        case .chatWait: slices[index].chatWait.add(value)
        case .queueLength: slices[index].queueLength = value
        case .agentsBusy: slices[index].agentsBusy = value
        default: break
        }
    }

    /// Slices twice as long: each pair of neighbours becomes one.
    private mutating func coarsen() {
        var merged: [Slice] = []
        merged.reserveCapacity(slices.count / 2 + 1)
        for start in stride(from: 0, to: slices.count, by: 2) {
            var slice = slices[start]
            if start + 1 < slices.count { slice.merge(slices[start + 1]) }
            merged.append(slice)
        }
        slices = merged
        sliceSeconds *= 2
    }
}
