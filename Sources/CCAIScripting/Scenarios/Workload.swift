import Foundation
import LuaRuntime

/// One scenario of a run as this process's slice runs it (``NamedScenario``): its VUs are
/// numbered after the previous scenarios' (`offset + 1 ... offset + peakVUs`), and the slice
/// owns the same of them as it would of a run of that scenario alone (``ScenarioSegment/shifted(by:)``).
struct Workload: Sendable {
    let scenario: NamedScenario
    /// Its place among the run's scenarios (it draws its arrivals from a stream of its own).
    let index: Int
    /// The VU number before its first.
    let offset: Int
    /// This slice as the scenario's VUs (numbered from 1 within it) and arrivals see it.
    let segment: ScenarioSegment
    /// This slice's VUs of the scenario, by their numbers in the run.
    let numbers: [Int]
    /// Those made before it starts: all of them; for arrivals the slice's share of `vus`, for
    /// a ramp those it wants at its start (at least one either way; the others are made
    /// when they are needed).
    let initial: [Int]
    /// The iterations it runs in this slice, when they are a number.
    let iterations: Int?
    let pool = UserPool()

    init(scenario: NamedScenario, index: Int, offset: Int, segment: ScenarioSegment) {
        self.scenario = scenario
        self.index = index
        self.offset = offset
        let local = segment.shifted(by: offset)
        self.segment = local
        let run = scenario.run
        numbers = local.vus(upTo: run.peakVUs).map { offset + $0 }
        switch run.executor {
        case .arrivalRate(let arrival):
            initial = Array(numbers.prefix(max(1, local.vus(upTo: min(run.vus, arrival.maxVUs)).count)))
        case .rampingVUs(let stages):
            let atStart = RampingSchedule(startVUs: run.vus, stages: stages).target(at: 0)
            initial = Array(numbers.prefix(max(1, local.vus(upTo: atStart).count)))
        case .sharedIterations, .constantVUs:
            initial = numbers
        }
        switch run.executor {
        case .sharedIterations(let total): iterations = local.iterations(of: total, vus: run.vus)
        case .constantVUs: iterations = run.iterations.map { local.iterations(of: $0, vus: run.vus) }
        case .rampingVUs, .arrivalRate: iterations = nil
        }
    }

    /// Whether VU `number` of the run is one of this scenario's.
    func owns(_ number: Int) -> Bool { number > offset && number <= offset + scenario.run.peakVUs }
}

/// The run's workloads, once its options are read: which scenario a VU belongs to.
final class RunWorkloads: @unchecked Sendable {
    private let lock = NSLock()
    private var workloads: [Workload] = []

    func set(_ workloads: [Workload]) { lock.withLock { self.workloads = workloads } }

    /// The workload VU `number` belongs to; nil before the options are read (or for VU 0).
    func owning(_ number: Int) -> Workload? { lock.withLock { workloads.first { $0.owns(number) } } }
}

