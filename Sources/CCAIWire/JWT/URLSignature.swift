import Foundation

/// Pre-signed URLs: a URL that works without credentials until it expires, because its
/// query carries `expires` (Unix seconds) and `signature`, the base64url HMAC-SHA256,
/// keyed by a secret only the signer knows, of what the URL may do (`fields`: the
/// operation, the resource, whatever else binds it) and the expiry. Each field is
/// length-prefixed, so no two lists of fields sign the same bytes. Checked in constant
/// time.
///
/// ```swift
/// let signer = URLSignature(key: URLSignature.randomKey())
/// let query = signer.query(for: ["media", "42"], expires: 1_800_000_000)   // "expires=...&signature=..."
/// signer.problem(["expires": "1800000000", "signature": "..."], for: ["media", "42"], now: Date())   // nil
/// ```
public struct URLSignature: Sendable {
    /// The query parameter of the expiry.
    public static let expiresParameter = "expires"
    /// The query parameter of the signature.
    public static let signatureParameter = "signature"

    /// Why a URL is refused.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        /// `expires` or `signature` is missing, or not what the signer writes.
        case malformed(String)
        /// The signature is not this signer's for these fields and this expiry.
        case mismatch
        /// Signed rightly, but its time is over.
        case expired(Date)

        public var description: String {
            switch self {
            case .malformed(let why): "the URL is not a pre-signed one: \(why)"
            case .mismatch: "the URL's signature does not match it: it was altered, or not signed by this server"
            case .expired(let date): "the URL expired at \(date.formatted(.iso8601)); ask for a new one"
            }
        }
    }

    private let key: Data

    public init(key: Data) {
        self.key = key
    }

    /// 32 random bytes from the system's generator: a key for one process's URLs.
    public static func randomKey() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The signature of `fields` until `expires`.
    public func signature(for fields: [String], expires: Int64) -> String {
        Base64URL.encode(JWTAlgorithm.hs256.hmac(Self.signedBytes(fields, expires: expires), key: key))
    }

    /// The query that makes a URL for `fields` work until `expires`: `expires=...&signature=...`.
    public func query(for fields: [String], expires: Int64) -> String {
        "\(Self.expiresParameter)=\(expires)&\(Self.signatureParameter)=\(signature(for: fields, expires: expires))"
    }

    /// Why the URL whose query is `query` does not allow `fields` at `now`, or nil when it
    /// does. The signature is checked before the expiry, so an altered `expires` is a
    /// mismatch, never a new lease.
    public func problem(_ query: [String: String], for fields: [String], now: Date) -> Problem? {
        guard let text = query[Self.expiresParameter], let signatureText = query[Self.signatureParameter] else {
            return .malformed("the query parameters '\(Self.expiresParameter)' and '\(Self.signatureParameter)' are required")
        }
        guard text.utf8.count <= 12, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let expires = Int64(text)
        else { return .malformed("'\(Self.expiresParameter)' must be whole Unix seconds") }
        guard let given = Base64URL.decode(Substring(signatureText)), given.count == 32 else {
            return .malformed("'\(Self.signatureParameter)' must be the base64url of 32 bytes")
        }
        let expected = JWTAlgorithm.hs256.hmac(Self.signedBytes(fields, expires: expires), key: key)
        guard ConstantTime.equal(given, expected) else { return .mismatch }
        let expiry = Date(timeIntervalSince1970: TimeInterval(expires))
        return now < expiry ? nil : .expired(expiry)
    }

    private static func signedBytes(_ fields: [String], expires: Int64) -> Data {
        Data((fields + [String(expires)]).map { "\($0.utf8.count):\($0)" }.joined(separator: "\n").utf8)
    }
}
