import CSSL
import Foundation

/// SHA-256, for what is stored in place of a secret (auth tokens are kept as digests).
///
/// ```swift
/// Digest.sha256Hex("token")   // 64 lowercase hex digits
/// ```
public enum Digest {
    /// The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex.
    public static func sha256Hex(_ text: String) -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { EVP_Digest($0.baseAddress, $0.count, &output, &length, EVP_sha256(), nil) }
        return output.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
