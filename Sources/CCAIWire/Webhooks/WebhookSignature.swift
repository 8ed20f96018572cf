import Foundation

/// The signature of a webhook request, as the chat platform API guide describes it: the
/// header `X-Signature: primary=<sig>` (and ` secondary=<sig>` when a second secret is
/// set, for rotating secrets), each signature the Base64 of the HMAC-SHA256, keyed by that
/// secret, of the `X-Signature-Timestamp` header's text followed by the exact body bytes.
/// The timestamp is whole Unix seconds (our choice: the public pages do not show its
/// format).
///
/// The sender signs with ``headers(body:at:)``; a receiver checks with
/// ``verify(body:signature:timestamp:now:)``: either secret may match either signature
/// (a receiver mid-rotation knows the new secret under either name), compared in constant
/// time, and a timestamp further than ``tolerance`` from `now` is refused (a replay).
///
/// ```swift
/// let signing = WebhookSignature(primarySecret: "0123456789abcdef", secondarySecret: nil)
/// let headers = signing.headers(body: body, at: Date())
/// try signing.verify(body: body, signature: headers["X-Signature"], timestamp: headers["X-Signature-Timestamp"])
/// ```
public struct WebhookSignature: Sendable {
    /// The header carrying the signatures.
    public static let signatureHeader = "X-Signature"
    /// The header carrying the signed timestamp.
    public static let timestampHeader = "X-Signature-Timestamp"
    /// How far a timestamp may be from the receiver's clock, either way, by default: five
    /// minutes (our choice; the guide's sample leaves the check optional).
    public static let defaultTolerance: TimeInterval = 300
    /// The longest `X-Signature` header read: two Base64 signatures and their names take
    /// about 100 bytes.
    public static let maximumHeaderBytes = 512

    public var primarySecret: String
    public var secondarySecret: String?
    /// Seconds a timestamp may be from `now`, older or newer.
    public var tolerance: TimeInterval

    public init(primarySecret: String, secondarySecret: String? = nil, tolerance: TimeInterval = defaultTolerance) {
        self.primarySecret = primarySecret
        self.secondarySecret = secondarySecret
        self.tolerance = tolerance
    }

    /// The Base64 HMAC-SHA256 of `timestamp` followed by `body`, keyed by `secret`.
    public static func signature(secret: String, timestamp: String, body: Data) -> String {
        JWTAlgorithm.hs256.hmac(Data(timestamp.utf8) + body, key: Data(secret.utf8)).base64EncodedString()
    }

    /// The timestamp header's text for `date`: whole Unix seconds.
    public static func timestamp(_ date: Date) -> String {
        String(Checked.truncated(date.timeIntervalSince1970.rounded(.down)) ?? 0)
    }

    /// The two headers of a request whose body is `body`, signed at `date`.
    public func headers(body: Data, at date: Date) -> [String: String] {
        let timestamp = Self.timestamp(date)
        var value = "primary=" + Self.signature(secret: primarySecret, timestamp: timestamp, body: body)
        if let secondarySecret, !secondarySecret.isEmpty {
            value += " secondary=" + Self.signature(secret: secondarySecret, timestamp: timestamp, body: body)
        }
        return [Self.signatureHeader: value, Self.timestampHeader: timestamp]
    }

    /// Checks a request's headers against its body; returns the signed time, or throws
    /// why the request is refused. `signature` and `timestamp` are the header values
    /// (nil when absent).
    @discardableResult
    public func verify(body: Data, signature: String?, timestamp: String?, now: Date = Date()) throws -> Date {
        guard let signature, !signature.isEmpty else { throw WebhookSignatureError.missingSignature }
        guard let timestamp, !timestamp.isEmpty else { throw WebhookSignatureError.missingTimestamp }
        let given = try Self.signatures(in: signature)
        guard timestamp.utf8.count <= 12, timestamp.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(timestamp)
        else { throw WebhookSignatureError.malformedTimestamp(String(timestamp.prefix(40))) }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        let age = now.timeIntervalSince(signedAt)
        guard age <= tolerance else { throw WebhookSignatureError.stale(ageSeconds: age, tolerance: tolerance) }
        guard -age <= tolerance else { throw WebhookSignatureError.fromTheFuture(aheadSeconds: -age, tolerance: tolerance) }
        let signed = Data(timestamp.utf8) + body
        let expected = [primarySecret, secondarySecret].compactMap { $0 }.filter { !$0.isEmpty }
            .map { JWTAlgorithm.hs256.hmac(signed, key: Data($0.utf8)) }
        // Every pair is compared, so the time does not tell which secret or signature matched.
        var matched = false
        for signature in given {
            for wanted in expected where ConstantTime.equal(signature, wanted) { matched = true }
        }
        guard matched else { throw WebhookSignatureError.mismatch }
        return signedAt
    }

    /// The decoded signatures of an `X-Signature` value: `primary=` then, optionally,
    /// ` secondary=`, each a Base64 HMAC-SHA256 (32 bytes), each name once.
    static func signatures(in header: String) throws -> [Data] {
        func malformed(_ why: String) -> WebhookSignatureError { .malformedSignature(why) }
        guard header.utf8.count <= maximumHeaderBytes else {
            throw malformed("the header is longer than \(maximumHeaderBytes) bytes")
        }
        var seen = Set<String>(), signatures: [Data] = []
        for part in header.split(separator: " ", omittingEmptySubsequences: true) {
            guard let equals = part.firstIndex(of: "=") else {
                throw malformed("'name=signature' pairs expected (primary=..., secondary=...)")
            }
            let name = String(part[..<equals]), value = String(part[part.index(after: equals)...])
            guard name == "primary" || name == "secondary" else { throw malformed("unknown name '\(name.prefix(20))'") }
            guard seen.insert(name).inserted else { throw malformed("'\(name)' appears twice") }
            guard let data = Data(base64Encoded: value), data.count == 32 else {
                throw malformed("the \(name) signature is not the Base64 of 32 bytes (an HMAC-SHA256)")
            }
            signatures.append(data)
        }
        guard seen.contains("primary") else { throw malformed("no primary signature") }
        return signatures
    }
}

/// Why a webhook request's signature is refused (a receiver answers 401).
public enum WebhookSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingSignature
    case missingTimestamp
    case malformedSignature(String)
    case malformedTimestamp(String)
    /// Signed longer ago than the tolerance: a replay, or a delivery held up too long.
    case stale(ageSeconds: TimeInterval, tolerance: TimeInterval)
    /// Signed later than now by more than the tolerance (a clock far off).
    case fromTheFuture(aheadSeconds: TimeInterval, tolerance: TimeInterval)
    /// No signature matches the body with any of the secrets.
    case mismatch

    public var description: String {
        switch self {
        case .missingSignature: return "the X-Signature header is missing"
        case .missingTimestamp: return "the X-Signature-Timestamp header is missing"
        case .malformedSignature(let why): return "the X-Signature header is malformed: \(why)"
        case .malformedTimestamp(let text): return "X-Signature-Timestamp must be whole Unix seconds, got '\(text)'"
        case .stale(let age, let tolerance):
            return "the signature is \(Self.seconds(age)) seconds old; at most \(Self.seconds(tolerance)) are accepted (a replay?)"
        case .fromTheFuture(let ahead, let tolerance):
            return "the signature is dated \(Self.seconds(ahead)) seconds ahead; at most \(Self.seconds(tolerance)) are accepted "
                + "(check the clocks)"
        case .mismatch: return "the signature does not match the body with any of the secrets"
        }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        Checked.truncated(value).map(String.init) ?? String(value)
    }
}
