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
        sha256Hex(Array(text.utf8))
    }

    /// The SHA-256 of `bytes`, as lowercase hex.
    public static func sha256Hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        CryptoLibrary.prepare()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(bytes)
        _ = bytes.withUnsafeBufferPointer { EVP_Digest($0.baseAddress, $0.count, &output, &length, EVP_sha256(), nil) }
        return hex(output.prefix(Int(length)))
    }

    /// `count` bytes from the system's random generator (the kernel's), in lowercase hex:
    /// unguessable tokens (sessions, CSRF tokens, ids others must not name).
    public static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Lowercase hex of `bytes` (without `String(format:)`, which is slow on this hot path:
    /// every request's token is digested).
    public static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
