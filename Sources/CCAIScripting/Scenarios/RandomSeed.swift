import Foundation
import LuaRuntime

/// The seed of a run (`--seed N`, `options.seed`, LUA-API section 14) and the independent
/// streams of random numbers drawn from it: each VU's `math.random` and `ccai.uuid`, and
/// the Poisson arrivals. The same seed gives the same draws in every stream, whatever
/// the machine; a run without one chooses one (``chosen()``) and says which.
///
/// ```swift
/// var arrivals = RandomSeed(42).generator(stream: RandomSeed.arrivalStream)
/// let gap = Double.random(in: 0..<1, using: &arrivals)
/// ```
public struct RandomSeed: Sendable, Equatable, CustomStringConvertible {
    public var value: UInt64

    public init(_ value: UInt64) {
        self.value = value
    }

    /// A seed for a run that was given none (printed, so that the run can be replayed).
    public static func chosen() -> RandomSeed {
        RandomSeed(UInt64.random(in: 0...UInt64(Int64.max)))
    }

    /// The stream of the arrivals of an `arrival` executor (VU streams are their numbers).
    public static let arrivalStream: UInt64 = .max

    /// The generator of stream `stream` (a VU's number, or ``arrivalStream``).
    public func generator(stream: UInt64) -> SeededGenerator {
        SeededGenerator(seed: value ^ (stream &* 0xD1B5_4A32_D192_ED03))
    }

    public var description: String { String(value) }

    /// Makes a state's `math.random` and `ccai.uuid` draw from stream `stream` of this
    /// seed (a script calling `math.randomseed` itself chooses its own).
    func install(in lua: LuaContext, stream: UInt64) throws {
        lua.attach(SeededUUIDs(generator(stream: stream)))
        try lua.evaluate("math.randomseed(\(Int64(bitPattern: value)), \(Int64(bitPattern: stream)))", chunkName: "=seed")
    }

    /// Reads a seed as the command line and `options.seed` give it: a whole number from 0
    /// to 2^63 - 1.
    public init?(parsing text: String) {
        guard let value = UInt64(text), value <= UInt64(Int64.max) else { return nil }
        self.init(value)
    }
}

/// SplitMix64: a small, fast generator whose output depends on its seed alone (Swift's
/// default generator is seeded by the system and cannot be replayed).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform draw in (0, 1]: never 0, so that its logarithm is finite.
    public mutating func unitInterval() -> Double {
        (Double(next() >> 11) + 1) / 9_007_199_254_740_992
    }

    /// A version 4 UUID made of the next 128 bits.
    public mutating func uuid() -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for half in 0..<2 {
            let word = next()
            for index in 0..<8 { bytes[half * 8 + index] = UInt8(truncatingIfNeeded: word >> (index * 8)) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// The `ccai.uuid` of a state whose run has a seed: its VU's stream (a state runs one
/// thing at a time, on its executor; the lock keeps it safe all the same).
final class SeededUUIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SeededGenerator

    init(_ generator: SeededGenerator) {
        self.generator = generator
    }

    func next() -> UUID {
        lock.withLock { generator.uuid() }
    }
}
