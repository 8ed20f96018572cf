import Foundation

/// Conversions of numbers that come from outside (a request, a configuration, the
/// platform) that never trap: a trap would take the whole process down with it.
///
/// ```swift
/// Checked.integer(1e300)                 // nil
/// Checked.nanoseconds(seconds: 1e300)    // 100 years, the longest wait
/// ```
public enum Checked {
    /// The longest wait anything takes: 100 years.
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

    /// Nanoseconds for a wait of `seconds`: NaN and negatives are 0, anything longer than
    /// ``maximumSeconds`` is that.
    public static func nanoseconds(seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        return UInt64(min(seconds, maximumSeconds) * 1e9)
    }
}
