import CSSL
import Foundation

/// Comparisons of secrets that take the same time wherever the first difference is, so
/// that an attacker cannot find a signature byte by byte from the answers' timing.
///
/// ```swift
/// ConstantTime.equal(given, expected)   // false for different lengths too
/// ```
public enum ConstantTime {
    /// Whether `given` and `expected` hold the same bytes (OpenSSL's `CRYPTO_memcmp`); only
    /// the length may leak, and signatures have a fixed one.
    public static func equal(_ given: Data, _ expected: Data) -> Bool {
        guard given.count == expected.count else { return false }
        return given.withUnsafeBytes { given in
            expected.withUnsafeBytes { expected in
                CRYPTO_memcmp(given.baseAddress, expected.baseAddress, expected.count) == 0
            }
        }
    }

    /// Whether two texts are the same UTF-8 bytes, compared as ``equal(_:_:)-(Data,Data)`` does.
    public static func equal(_ given: String, _ expected: String) -> Bool {
        equal(Data(given.utf8), Data(expected.utf8))
    }
}
