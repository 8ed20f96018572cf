import Foundation

/// Durations from scripts (`task:wait(1e11)`, `wait_for(..., { timeout = 1e300 })`) as
/// waits that never trap: NaN and negatives are no wait, anything past 100 years is 100
/// years. (CCAIWire's `Checked` does the same for the wire; this module knows nothing of it.)
///
/// ```swift
/// try await Task.sleep(nanoseconds: LuaDuration.nanoseconds(seconds: timeout))
/// ```
public enum LuaDuration {
    /// The longest wait: 100 years.
    public static let maximumSeconds: Double = 100 * 365 * 86_400

    public static func nanoseconds(seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        return UInt64(min(seconds, maximumSeconds) * 1e9)
    }
}
