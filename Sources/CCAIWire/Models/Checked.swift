import Foundation

/// Conversions of numbers that come from outside (a request, a configuration, the
/// platform) that never trap: a trap would take the whole process down with it.
///
/// ```swift
/// Checked.integer(1e300)       // nil
/// Checked.truncated(-1.9)      // -1
/// ```
public enum Checked {
    /// The longest lifetime a token or a JWT may be given: 100 years (the longest wait a
    /// clock takes too, `ClockDelay.maximumSeconds`).
    public static let maximumSeconds: Double = 100 * 365 * 86_400

    /// The integer a double holds exactly (no fraction), or nil: NaN, infinities, fractions
    /// and values beyond `Int` are nil.
    public static func integer(_ value: Double) -> Int? {
        guard value.isFinite, value == value.rounded() else { return nil }
        return Int(exactly: value)
    }

    /// The integer part of a double within `Int`, or nil for NaN, infinities and values beyond `Int`.
    public static func truncated(_ value: Double) -> Int? {
        guard value.isFinite else { return nil }
        return Int(exactly: value.rounded(.towardZero))
    }
}
