import Foundation

/// A duration as k6 writes them: `"30s"`, `"5m"`, `"1h30m"`, `"250ms"`, `"1.5s"`, or a
/// number of seconds. At most 100 years; never negative.
///
/// ```swift
/// try ScenarioDuration.seconds(in: "1m30s")   // 90
/// ```
public enum ScenarioDuration {
    public struct Problem: Error, Equatable {
        public var message: String
    }

    private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    static let maximumSeconds = 100 * 365.25 * 86400

    public static func seconds(in text: String) throws -> Double {
        let expected = Problem(message: "a duration such as \"30s\", \"5m\" or \"1h30m\" expected, got \"\(text)\"")
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw expected }
        if let plain = Double(rest) { return try checked(plain, text) }
        var total = 0.0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard let amount = Double(digits) else { throw expected }
            rest = rest.dropFirst(digits.count)
            // "ms" before "m": the longest unit that matches.
            guard let unit = units.sorted(by: { $0.suffix.count > $1.suffix.count }).first(where: { rest.hasPrefix($0.suffix) })
            else { throw expected }
            rest = rest.dropFirst(unit.suffix.count)
            total += amount * unit.seconds
        }
        return try checked(total, text)
    }

    private static func checked(_ seconds: Double, _ text: String) throws -> Double {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else {
            throw Problem(message: "a duration from 0 to 100 years expected, got \"\(text)\"")
        }
        return seconds
    }
}
