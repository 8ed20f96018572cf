import CSSL
import Foundation

/// Comparisons of secrets that take the same time wherever the first difference is, so
/// that an attacker cannot find a signature byte by byte from the answers' timing.
///
/// ```swift
/// ConstantTime.equal(given, expected)   // false for different lengths too
/// ```
enum ConstantTime {
    /// Whether `given` and `expected` hold the same bytes (OpenSSL's `CRYPTO_memcmp`); only
    /// the length may leak, and signatures have a fixed one.
    static func equal(_ given: Data, _ expected: Data) -> Bool {
        guard given.count == expected.count else { return false }
        return given.withUnsafeBytes { given in
            expected.withUnsafeBytes { expected in
                CRYPTO_memcmp(given.baseAddress, expected.baseAddress, expected.count) == 0
            }
        }
    }
}
