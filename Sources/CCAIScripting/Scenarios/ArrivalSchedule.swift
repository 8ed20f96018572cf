import Foundation

/// When the arrivals of an open-model run come, and how many there are: the plan that every
/// arrival is accounted against (it starts an iteration or it is dropped, with a reason).
///
/// The rate is piecewise linear in time (one flat piece for `arrival`, one piece per stage
/// for `ramping_arrival`). Arrival `k` (from 0) comes at the moment the expected number of
/// arrivals so far reaches `x(k)`: `k` itself when they are evenly spaced, or the sum of
/// `k` exponential gaps of mean 1 drawn from the run's seed (``RandomSeed/arrivalStream``)
/// for a Poisson process. So the slices of a split run, given the same seed, see the same
/// arrivals, and a flat rate gives arrival `k` at `k` intervals, without error piling up.
///
/// ```swift
/// var schedule = ArrivalSchedule(arrival, seed: seed)
/// while let offset = schedule.next() { … }     // seconds from the start, in order
/// ```
struct ArrivalSchedule {
    /// One stretch of time over which the rate goes linearly from `from` to `to` (arrivals
    /// a second); `before`: the expected arrivals before it.
    private struct Piece {
        let begins: Double
        let duration: Double
        let from: Double
        let to: Double
        let before: Double
        var expected: Double { (from + to) / 2 * duration }
    }

    private var pieces: [Piece]
    /// The expected arrivals of the whole run.
    private(set) var expected: Double
    private let poisson: Bool
    private var generator: SeededGenerator
    /// `x` of the next arrival, and its number (from 0).
    private var position = 0.0
    private(set) var handedOut = 0

    /// The most Poisson gaps drawn to count the arrivals a run ending early will not start;
    /// past it, the rest are counted by their expected number.
    static let maximumDrawsCounted = 10_000_000

    /// `stream`: the seed's stream its Poisson gaps are drawn from (one per scenario).
    init(_ arrival: ScenarioOptions.Arrival, seed: RandomSeed, stream: UInt64 = RandomSeed.arrivalStream) {
        var pieces: [Piece] = [], begins = 0.0, before = 0.0
        for (duration, from, to) in arrival.ratePieces where duration > 0 {
            let piece = Piece(begins: begins, duration: duration, from: from / arrival.timeUnit, to: to / arrival.timeUnit,
                              before: before)
            pieces.append(piece)
            begins += duration
            before += piece.expected
        }
        self.pieces = pieces
        expected = before
        poisson = arrival.poisson
        generator = seed.generator(stream: stream)
    }

    /// Whether `x` is before the end: within a billionth of the expected count of it, an
    /// arrival is the end's (a rate of 200 a minute for a minute is 200 arrivals, not 201
    /// because 60 / 0.3 is 200.00000000000003).
    private func isBeforeEnd(_ x: Double) -> Bool { x < expected - 1e-9 * max(1, expected) }

    /// Seconds from the start to the next arrival; nil when the plan has no more.
    mutating func next() -> Double? {
        guard let offset = peek() else { return nil }
        handedOut += 1
        position = poisson ? position - log(generator.unitInterval()) : Double(handedOut)
        return offset
    }

    /// Seconds from the start to the next arrival, without handing it out; nil when the
    /// plan has no more.
    func peek() -> Double? {
        isBeforeEnd(position) ? time(of: position) : nil
    }

    /// Changes the plan from `elapsed` seconds on to a flat `perSecond` until `end` seconds:
    /// what was planned before stays, so the arrivals already handed out keep their place,
    /// and the next one comes when the new rate brings the expected count to it.
    mutating func setRate(_ perSecond: Double, from elapsed: Double, until end: Double) {
        let from = max(0, min(elapsed, end))
        var kept: [Piece] = []
        for piece in pieces where piece.begins < from {
            let cut = min(piece.duration, from - piece.begins)
            let rateThere = piece.from + (piece.to - piece.from) * cut / piece.duration
            kept.append(Piece(begins: piece.begins, duration: cut, from: piece.from, to: rateThere, before: piece.before))
        }
        let before = kept.last.map { $0.before + $0.expected } ?? 0
        let rate = max(0, perSecond)
        if end > from { kept.append(Piece(begins: from, duration: end - from, from: rate, to: rate, before: before)) }
        pieces = kept
        expected = before + rate * (end - from)
    }

    /// The rate at `elapsed` seconds, in arrivals a second.
    func rate(at elapsed: Double) -> Double {
        guard let piece = pieces.last(where: { $0.begins <= elapsed }) else { return pieces.first?.from ?? 0 }
        let within = min(max(elapsed - piece.begins, 0), piece.duration)
        return piece.from + (piece.to - piece.from) * within / piece.duration
    }

    /// Hands out the arrivals left (the run is ending) and returns how many of them are
    /// `segment`'s.
    mutating func skipRest(ownedBy segment: ScenarioSegment) -> Int {
        let first = handedOut
        if poisson {
            var draws = 0
            while isBeforeEnd(position), draws < Self.maximumDrawsCounted {
                handedOut += 1
                draws += 1
                position -= log(generator.unitInterval())
            }
            if isBeforeEnd(position) {
                handedOut += Int((expected - position).rounded(.up))
                position = expected
            }
        } else if isBeforeEnd(position) {
            let total = Int(min((expected - 1e-9 * max(1, expected)).rounded(.up), 1e15))
            handedOut = max(handedOut, total)
            position = expected
        }
        return segment.arrivals(from: first + 1, through: handedOut)
    }

    /// The moment the expected arrivals reach `x`.
    private func time(of x: Double) -> Double {
        guard let piece = pieces.last(where: { $0.before <= x }) else { return 0 }
        // Within the piece: from·t + (to - from)/(2·duration)·t² = x - before, solved in the
        // form that stays exact when the rate is flat (and when it starts at 0).
        let wanted = x - piece.before, slope = (piece.to - piece.from) / (2 * piece.duration)
        let root = (piece.from * piece.from + 4 * slope * wanted).squareRoot()
        let denominator = piece.from + root
        let within = denominator > 0 ? 2 * wanted / denominator : 0
        return piece.begins + min(max(within, 0), piece.duration)
    }
}

extension ScenarioOptions.Arrival {
    /// The rate's linear pieces: (seconds, arrivals per time unit at the start, at the end).
    var ratePieces: [(Double, Double, Double)] {
        guard !stages.isEmpty else { return [(duration, rate, rate)] }
        var from = startRate
        return stages.map { stage in
            defer { from = stage.target }
            return (stage.duration, from, stage.target)
        }
    }
}

extension ScenarioSegment {
    /// How many of the arrivals numbered `first...last` (from 1) are this slice's.
    func arrivals(from first: Int, through last: Int) -> Int {
        guard last >= first else { return 0 }
        // Arrival n is this slice's when (n - 1) % count == index - 1: count those below a bound.
        func owned(below bound: Int) -> Int { bound > index - 1 ? (bound - index) / count + 1 : 0 }
        return owned(below: last) - owned(below: first - 1)
    }
}
