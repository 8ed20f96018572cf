import Foundation

/// What a run did over time, for the charts of the HTML report and the history of `--out
/// csv`: by slice of time, the VUs taking part, the iterations that ended and failed, the
/// embedded sandbox's queue and busy agents, digests of the chat waits, message round
/// trips and first responses, and the SDK calls by method. Slices start at one second; when a run outlasts
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
        /// The SDK calls that ended in the slice, by method.
        public var calls: [SDKMethod: SDKCallFigures] = [:]

        public init() {}

        mutating func merge(_ later: Slice) {
            vus = later.vus ?? vus
            queueLength = later.queueLength ?? queueLength
            agentsBusy = later.agentsBusy ?? agentsBusy
            chatWait.merge(later.chatWait)
            iterations += later.iterations
            failedIterations += later.failedIterations
            roundTrip.merge(later.roundTrip)
            firstResponse.merge(later.firstResponse)
            calls.merge(later.calls) { var figures = $0; figures.merge($1); return figures }
        }

        /// `other`'s figures added: the same moment of another segment of the run, whose
        /// VUs, queue and busy agents (its own embedded sandbox's) add to these.
        mutating func add(_ other: Slice) {
            func sum(_ mine: Double?, _ theirs: Double?) -> Double? { mine.map { $0 + (theirs ?? 0) } ?? theirs }
            vus = sum(vus, other.vus)
            queueLength = sum(queueLength, other.queueLength)
            agentsBusy = sum(agentsBusy, other.agentsBusy)
            let gauges = (vus, queueLength, agentsBusy)
            merge(other)
            (vus, queueLength, agentsBusy) = gauges
        }
    }

    public static let maximumSlices = 1_000

    /// When the first slice begins (the first sample); nil before any.
    public private(set) var origin: Date?
    /// Seconds per slice.
    public private(set) var sliceSeconds = 1.0
    public private(set) var slices: [Slice] = []

    public init() {}

    /// A timeline of `slices` of `sliceSeconds` each from `origin`.
    init(origin: Date?, sliceSeconds: Double, slices: [Slice]) {
        self.origin = origin
        self.sliceSeconds = sliceSeconds
        self.slices = slices
    }

    /// The metrics the timeline follows.
    static let followed: Set<BuiltInMetric> = [.vus, .iterations, .iterationFailed, .messageRoundTrip, .chatFirstResponse, .chatWait,
                                               .queueLength, .agentsBusy, .sdkCall]

    mutating func record(_ metric: BuiltInMetric, _ value: Double, tags: [String: String] = [:], at time: Date) {
        guard Self.followed.contains(metric) else { return }
        let origin = self.origin ?? time
        self.origin = origin
        let index = slot(at: time.timeIntervalSince(origin))
        switch metric {
        case .vus: slices[index].vus = value
        case .iterations: slices[index].iterations += 1
        case .iterationFailed where value != 0: slices[index].failedIterations += 1
        case .messageRoundTrip: slices[index].roundTrip.add(value)
        case .chatFirstResponse: slices[index].firstResponse.add(value)
        case .chatWait: slices[index].chatWait.add(value)
        case .queueLength: slices[index].queueLength = value
        case .agentsBusy: slices[index].agentsBusy = value
        case .sdkCall:
            guard let method = SDKMethod(tags: tags) else { break }
            slices[index].calls[method, default: SDKCallFigures()].add(value, status: tags["status"])
        default: break
        }
    }

    /// The timelines of segments of a run that ran at the same time, as one: slices at
    /// the same moment add up (their VUs too), on the coarsest slices of them.
    public static func concurrent(_ timelines: [Timeline]) -> Timeline {
        let started = timelines.compactMap(\.origin)
        guard let origin = started.min() else { return Timeline() }
        var merged = Timeline(origin: origin, sliceSeconds: timelines.map(\.sliceSeconds).max() ?? 1, slices: [])
        for timeline in timelines {
            guard let start = timeline.origin else { continue }
            var aligned = Timeline(origin: origin, sliceSeconds: merged.sliceSeconds, slices: [])
            for (index, slice) in timeline.slices.enumerated() {
                let offset = start.timeIntervalSince(origin) + Double(index) * timeline.sliceSeconds
                aligned.place(slice, at: offset) { $0.merge($1) }
            }
            while aligned.sliceSeconds < merged.sliceSeconds { aligned.coarsen() }
            while merged.sliceSeconds < aligned.sliceSeconds { merged.coarsen() }
            for (index, slice) in aligned.slices.enumerated() {
                merged.place(slice, at: Double(index) * merged.sliceSeconds) { $0.add($1) }
            }
        }
        return merged
    }

    /// Puts `slice` in the slice `offset` seconds from the origin (coarsening as needed),
    /// combined with what is there by `combine`.
    private mutating func place(_ slice: Slice, at offset: Double, _ combine: (inout Slice, Slice) -> Void) {
        combine(&slices[slot(at: offset)], slice)
    }

    /// The index of the slice `offset` seconds from the origin (before it: the first),
    /// made if it is not there yet; slices double in length to keep within ``maximumSlices``.
    private mutating func slot(at offset: Double) -> Int {
        let offset = Swift.max(0, offset)
        var index = Int(Swift.min(offset / sliceSeconds, Double(Int32.max)))
        while index >= Self.maximumSlices {
            coarsen()
            index = Int(Swift.min(offset / sliceSeconds, Double(Int32.max)))
        }
        if slices.count <= index { slices.append(contentsOf: repeatElement(Slice(), count: index + 1 - slices.count)) }
        return index
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
