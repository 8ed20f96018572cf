import CSSL
import Foundation

/// The HMAC algorithms end-user JWTs are signed with: the mobile seed names HS384, the
/// platform's web documentation HS256.
public enum JWTAlgorithm: String, CaseIterable, Sendable {
    case hs256 = "HS256"
    case hs384 = "HS384"

    func hmac(_ data: Data, key: Data) -> Data {
        CryptoLibrary.prepare()
        let digest = self == .hs256 ? EVP_sha256() : EVP_sha384()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                _ = HMAC(digest, keyBytes.baseAddress, Int32(keyBytes.count),
                         dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count, &output, &length)
            }
        }
        return Data(output.prefix(Int(length)))
    }
}

/// Why a JWT was refused.
public enum JWTError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupportedAlgorithm(String)
    case badSignature
    case expired
    case issuedInTheFuture
    case missingClaim(String)
    case duplicateKey(String)
    case lifetimeTooLong(maximum: TimeInterval)
    case invalidLifetime

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed token: \(why)"
        case .unsupportedAlgorithm(let algorithm): return "unsupported signing algorithm '\(algorithm)'"
        case .badSignature: return "the signature does not match"
        case .expired: return "the token has expired"
        case .issuedInTheFuture: return "the token is issued in the future (check the clock)"
        case .missingClaim(let name): return "the '\(name)' claim is missing or not a number"
        case .duplicateKey(let name): return "malformed token: the key '\(name)' appears twice"
        case .lifetimeTooLong(let maximum):
            return "the token lives longer than the \(Checked.integer(maximum).map(String.init) ?? String(maximum)) seconds accepted (exp - iat)"
        case .invalidLifetime: return "the lifetime must be a positive number of seconds of at most 100 years"
        }
    }
}

/// Signs claims into a compact JWT.
///
/// ```swift
/// let token = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
///     .sign(["identifier": "vu-1"], issuedAt: Date(), lifetime: 600)
/// ```
public struct JWTSigner: Sendable {
    public let algorithm: JWTAlgorithm
    private let key: Data

    public init(algorithm: JWTAlgorithm, secret: String) {
        self.algorithm = algorithm
        self.key = Data(secret.utf8)
    }

    /// Signs `claims` as they are.
    public func sign(_ claims: [String: JSONValue]) throws -> String {
        let header: JSONValue = ["alg": .string(algorithm.rawValue), "typ": "JWT"]
        let signingInput = Base64URL.encode(Data(try header.jsonText().utf8)) + "."
            + Base64URL.encode(Data(try JSONValue.object(claims).jsonText().utf8))
        return signingInput + "." + Base64URL.encode(algorithm.hmac(Data(signingInput.utf8), key: key))
    }

    /// The base64url signature of a signing input (`header.payload`), for tools and tests
    /// that build tokens by hand.
    public static func signature(of signingInput: String, algorithm: JWTAlgorithm, secret: String) throws -> String {
        Base64URL.encode(algorithm.hmac(Data(signingInput.utf8), key: Data(secret.utf8)))
    }

    /// Signs `claims` with `iat` and `exp` set from `issuedAt` and `lifetime` seconds.
    /// `lifetime` must be positive and at most 100 years (``JWTError/invalidLifetime``).
    public func sign(_ claims: [String: JSONValue], issuedAt: Date, lifetime: TimeInterval) throws -> String {
        guard lifetime > 0, lifetime <= Checked.maximumSeconds, let issued = Checked.truncated(issuedAt.timeIntervalSince1970),
            let seconds = Checked.truncated(lifetime.rounded(.up))
        else { throw JWTError.invalidLifetime }
        var claims = claims
        claims["iat"] = .integer(Int64(issued))
        claims["exp"] = .integer(Int64(issued) + Int64(seconds))
        return try sign(claims)
    }
}

/// Checks a compact JWT: structure (canonical base64url, no key twice), algorithm (never
/// `none`), signature in constant time, the mandatory `iat`/`exp` claims with a small
/// clock skew, and a lifetime (`exp` - `iat`) of at most `maximumLifetime`.
///
/// ```swift
/// let verifier = JWTVerifier(secret: "dev-secret", algorithms: [.hs384, .hs256])
/// let claims = try verifier.verify(token)
/// ```
public struct JWTVerifier: Sendable {
    public var algorithms: Set<JWTAlgorithm>
    /// Seconds of clock difference tolerated on `iat` and `exp`.
    public var leeway: TimeInterval
    /// The longest lifetime accepted, in seconds (default one day).
    public var maximumLifetime: TimeInterval
    private let key: Data

    public init(secret: String, algorithms: Set<JWTAlgorithm> = Set(JWTAlgorithm.allCases), leeway: TimeInterval = 60,
                maximumLifetime: TimeInterval = 86_400) {
        self.key = Data(secret.utf8)
        self.algorithms = algorithms
        self.leeway = leeway
        self.maximumLifetime = maximumLifetime
    }

    /// The token's claims, or the reason it is refused.
    public func verify(_ token: String, now: Date = Date()) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JWTError.malformed("expected three dot-separated parts") }
        guard let headerData = Base64URL.decode(parts[0]),
            let header = (try? JSONDecoder().decode(JSONValue.self, from: headerData))?.objectValue
        else { throw JWTError.malformed("the header is not base64url-encoded JSON") }
        if let key = JSONKeys.duplicate(in: headerData) { throw JWTError.duplicateKey(key) }
        guard let name = header["alg"]?.stringValue else { throw JWTError.malformed("the header has no 'alg'") }
        guard let algorithm = JWTAlgorithm(rawValue: name), algorithms.contains(algorithm) else {
            throw JWTError.unsupportedAlgorithm(name)
        }
        guard let signature = Base64URL.decode(parts[2]) else { throw JWTError.malformed("the signature is not base64url") }
        let expected = algorithm.hmac(Data("\(parts[0]).\(parts[1])".utf8), key: key)
        guard ConstantTime.equal(signature, expected) else { throw JWTError.badSignature }
        guard let payloadData = Base64URL.decode(parts[1]),
            let claims = (try? JSONDecoder().decode(JSONValue.self, from: payloadData))?.objectValue
        else { throw JWTError.malformed("the payload is not a base64url-encoded JSON object") }
        if let key = JSONKeys.duplicate(in: payloadData) { throw JWTError.duplicateKey(key) }
        guard let issuedAt = claims["iat"]?.doubleValue else { throw JWTError.missingClaim("iat") }
        guard let expiresAt = claims["exp"]?.doubleValue else { throw JWTError.missingClaim("exp") }
        let seconds = now.timeIntervalSince1970
        guard issuedAt <= seconds + leeway else { throw JWTError.issuedInTheFuture }
        guard expiresAt > seconds - leeway else { throw JWTError.expired }
        guard expiresAt - issuedAt <= maximumLifetime else { throw JWTError.lifetimeTooLong(maximum: maximumLifetime) }
        return claims
    }
}

/// The claims of a JWT the app itself signed (its own custom data, say), read without
/// checking the signature: for showing what was sent, never for trusting a token.
///
/// ```swift
/// let data = JWTPayload.claims(of: jwt)?["custom_data"]
/// ```
public enum JWTPayload {
    /// The payload's claims; nil when `token` is not a JWT with a JSON object payload.
    public static func claims(of token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]) else { return nil }
        return (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue
    }
}
