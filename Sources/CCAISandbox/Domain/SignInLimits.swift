import CCAIWire
import Foundation
import Timekeeping

/// How fast end users may sign in (`POST /auth/end_user`): per company key, checked before
/// the JWT's signature so that a flood of forged JWTs costs no more than a bucket, and per
/// identifier once the JWT is verified, so that no one end user piles up tokens. Past
/// either, a 429 `limit_exceeded` with Retry-After that names the limit.
///
/// ```swift
/// let signIns = SignInLimits(limits, clock: clock)
/// try signIns.admitCompany(request.companyKey)   // before the signature check
/// try signIns.admitIdentifier(identifier)        // after it
/// ```
struct SignInLimits: Sendable {
    /// nil: a limit the sandbox does not enforce (``LimitDefaults/onlyConfigured``).
    private let company: RateLimiter<String>?
    private let identifier: RateLimiter<String>?

    init(_ limits: LimitsConfiguration, clock: any TimeSource) {
        company = limits.effectiveCompanySignInRate.map { RateLimiter(rate: $0.rate, burst: $0.burst, clock: clock) }
        identifier = limits.effectiveSignInsPerMinute.map { RateLimiter(rate: Double($0) / 60, burst: Double($0), clock: clock) }
    }

    /// Takes one sign-in of the company's bucket, or refuses with a 429.
    func admitCompany(_ key: String) throws {
        guard let company, let wait = company.retryAfter(key) else { return }
        throw HTTPError.limitExceeded("too many sign-ins for the company: at most \(company.rate.limitText) a second "
                                      + "(limits.company_sign_ins_per_second) after a burst of \(company.burst.limitText) "
                                      + "(limits.company_sign_in_burst)", retryAfter: wait)
    }

    /// Takes one sign-in of the identifier's bucket, or refuses with a 429.
    func admitIdentifier(_ name: String) throws {
        guard let identifier, let wait = identifier.retryAfter(name) else { return }
        throw HTTPError.limitExceeded("too many sign-ins as this identifier: at most \(identifier.burst.limitText) a minute "
                                      + "(limits.sign_ins_per_minute)", retryAfter: wait)
    }
}
