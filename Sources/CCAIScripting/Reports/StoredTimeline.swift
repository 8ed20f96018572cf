import Foundation

extension ScenarioReport {
    /// The run's ``Timeline`` as a summary file keeps it, so that `ccai report merge` can
    /// draw the charts of the whole run and write its `--out csv` history: when it began
    /// (seconds since 1970, on the run's clock: simulated in virtual time), the slices'
    /// length, and each slice's figures.
    public struct StoredTimeline: Codable, Equatable, Sendable {
        public var origin: Double
        public var sliceSeconds: Double
        public var slices: [StoredSlice]

        enum CodingKeys: String, CodingKey {
            case origin, slices
            case sliceSeconds = "slice_seconds"
        }
    }

    public struct StoredSlice: Codable, Equatable, Sendable {
        public var vus: Double?
        public var queueLength: Double?
        public var agentsBusy: Double?
        public var iterations: Int
        public var failedIterations: Int
        public var roundTrip: TrendDigest.Stored?
        public var firstResponse: TrendDigest.Stored?
        public var chatWait: TrendDigest.Stored?
        public var calls: [StoredCalls]?

        enum CodingKeys: String, CodingKey {
            case vus, iterations, calls
            case queueLength = "queue_length"
            case agentsBusy = "agents_busy"
            case failedIterations = "failed_iterations"
            case roundTrip = "round_trip"
            case firstResponse = "first_response"
            case chatWait = "chat_wait"
        }
    }

    /// The calls of one SDK method in a slice.
    public struct StoredCalls: Codable, Equatable, Sendable {
        public var service: String
        public var method: String
        public var failures: Int
        public var seconds: TrendDigest.Stored
    }
}

extension ScenarioReport.StoredTimeline {
    /// `timeline` as a file keeps it; nil for a timeline without a sample.
    init?(_ timeline: Timeline) {
        guard let origin = timeline.origin else { return nil }
        self.origin = origin.timeIntervalSince1970
        sliceSeconds = timeline.sliceSeconds
        slices = timeline.slices.map { slice in
            func stored(_ digest: TrendDigest) -> TrendDigest.Stored? { digest.count > 0 ? digest.stored : nil }
            let calls = slice.calls.sorted { $0.key < $1.key }.map {
                ScenarioReport.StoredCalls(service: $0.key.service, method: $0.key.method, failures: $0.value.failures,
                                           seconds: $0.value.seconds.stored)
            }
            return ScenarioReport.StoredSlice(vus: slice.vus, queueLength: slice.queueLength, agentsBusy: slice.agentsBusy,
                                              iterations: slice.iterations, failedIterations: slice.failedIterations,
                                              roundTrip: stored(slice.roundTrip), firstResponse: stored(slice.firstResponse),
                                              chatWait: stored(slice.chatWait), calls: calls.isEmpty ? nil : calls)
        }
    }

    /// The timeline back, checked: at most ``Timeline/maximumSlices`` slices of a length
    /// a run uses (a power of two seconds), finite gauges, counts in range, digests that add up.
    func timeline() throws -> Timeline {
        func problem(_ message: String) -> ScenarioReport.Problem { ScenarioReport.Problem(message: "timeline: \(message)") }
        let limit = TrendDigest.maximumStoredCount
        guard origin.isFinite, abs(origin) < 1e11 else { throw problem("its origin is not a time") }
        guard sliceSeconds >= 1, sliceSeconds <= 0x1p40, sliceSeconds == pow(2, log2(sliceSeconds).rounded()) else {
            throw problem("slices of \(sliceSeconds) s: a run's are 1 s, 2 s, 4 s, ...")
        }
        guard slices.count <= Timeline.maximumSlices else { throw problem("more than \(Timeline.maximumSlices) slices") }
        func digest(_ stored: TrendDigest.Stored?) throws -> TrendDigest {
            guard let stored else { return TrendDigest() }
            guard let digest = TrendDigest(stored) else { throw problem("a digest that does not add up") }
            return digest
        }
        let slices = try self.slices.map { stored -> Timeline.Slice in
            let gauges = [stored.vus, stored.queueLength, stored.agentsBusy].compactMap { $0 }
            guard gauges.allSatisfy(\.isFinite), (0...limit).contains(stored.iterations),
                (0...stored.iterations).contains(stored.failedIterations), (stored.calls?.count ?? 0) <= ScenarioReport.maximumStoredItems
            else { throw problem("a slice is not what a run records") }
            var slice = Timeline.Slice()
            (slice.vus, slice.queueLength, slice.agentsBusy) = (stored.vus, stored.queueLength, stored.agentsBusy)
            (slice.iterations, slice.failedIterations) = (stored.iterations, stored.failedIterations)
            slice.roundTrip = try digest(stored.roundTrip)
            slice.firstResponse = try digest(stored.firstResponse)
            slice.chatWait = try digest(stored.chatWait)
            for calls in stored.calls ?? [] {
                var figures = SDKCallFigures()
                figures.seconds = try digest(calls.seconds)
                figures.failures = calls.failures
                let method = SDKMethod(service: calls.service, method: calls.method)
                guard (0...figures.calls).contains(calls.failures), slice.calls[method] == nil else {
                    throw problem("the calls of \(calls.service).\(calls.method.prefix(60)) are not what a run records")
                }
                slice.calls[method] = figures
            }
            return slice
        }
        return Timeline(origin: Date(timeIntervalSince1970: origin), sliceSeconds: sliceSeconds, slices: slices)
    }
}
