import Foundation

/// Nanoseconds per operation of a timed loop: the best of several rounds, so that a
/// stray pause of the machine does not count.
struct Timing {
    static func nanosecondsPerOperation(operations: Int, rounds: Int = 5, _ body: () throws -> Void) rethrows
        -> Double
    {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(operations))
        }
        return best
    }
}

/// One line of the report: a named figure, with what it was computed from.
struct BenchmarkResult {
    var name: String
    var value: Double
    var target: String
    var detail: String
}
