import CCAIWire
import Foundation
import Timekeeping

/// The door of the Apps API (`/apps/api/v1`): HTTP Basic credentials, the company's
/// subdomain as the user name and a token of `api_credentials` as the password, checked on
/// the request's headers before its body is read; then the company's rate (`limits.
/// apps_requests_per_second`, 10 by default as published), past which a 429 says when to
/// come back. A refused credential gets one 401 whatever was wrong: the answer does not
/// tell a guesser which part to change.
struct AppsGate: Sendable {
    let subdomain: String
    /// The SHA-256 hex digests of the tokens.
    let tokenDigests: [String]
    let limiter: RateLimiter<String>

    init(configuration: SandboxConfiguration, limits: LimitsConfiguration, clock: any TimeSource) {
        subdomain = configuration.company.effectiveSubdomain
        tokenDigests = (configuration.apiCredentials ?? []).map(\.tokenDigest)
        limiter = RateLimiter(rate: limits.effectiveAppsRequestsPerSecond, burst: limits.effectiveAppsBurst, clock: clock)
    }

    /// Nil to go on, else the refusal of a request with this `Authorization` header.
    func refusal(_ authorization: String?) -> HTTPError? {
        guard let (user, password) = Self.basicCredentials(authorization),
              ConstantTime.equal(user, subdomain) && tokenDigests.contains(where: { ConstantTime.equal(Digest.sha256Hex(password), $0) })
        else {
            return HTTPError(code: .unauthenticated,
                             message: "the Apps API needs Basic credentials: the company's subdomain and an API token",
                             headers: ["WWW-Authenticate": "Basic realm=\"apps\", charset=\"UTF-8\""])
        }
        guard let wait = limiter.retryAfter(subdomain) else { return nil }
        return .limitExceeded("too many Apps API requests: at most \(limiter.rate.limitText) a second per company "
                              + "(limits.apps_requests_per_second)", retryAfter: wait)
    }

    /// The user name and password of an `Authorization: Basic BASE64` header value.
    static func basicCredentials(_ header: String?) -> (user: String, password: String)? {
        guard let header, header.count <= 4_096, header.lowercased().hasPrefix("basic ") else { return nil }
        let encoded = header.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
        guard let decoded = Data(base64Encoded: encoded), let text = String(data: decoded, encoding: .utf8),
              let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
