import CCAIWire
import Foundation
import Timekeeping

/// How fast end users may sign in (`POST /auth/end_user`). A sign-in that fails (an
/// unknown company key, a refused JWT) is charged to the address it came from, and an
/// address past its failures is refused before its JWT is looked at, so a flood of bad
/// JWTs spends its sender's budget only. One whose JWT's signature holds (an HMAC, checked
/// first) is limited per company key and per identifier, so that no one end user piles up
/// tokens. Past any, a 429 `limit_exceeded` with Retry-After that names the limit.
/// Requests answered in process have no address: their failures are not limited.
///
/// ```swift
/// let signIns = SignInLimits(limits, clock: clock)
/// try signIns.admitAddress(request.clientAddress)   // before anything
/// signIns.chargeFailure(request.clientAddress)      // when the key or the JWT is refused
/// try signIns.admitCompany(company.key)             // once the signature holds
/// try signIns.admitIdentifier(identifier)
/// ```
struct SignInLimits: Sendable {
    private let company: RateLimiter<String>
    private let identifier: RateLimiter<String>
    private let failures: RateLimiter<String>

    init(_ limits: LimitsConfiguration, clock: any TimeSource) {
        company = RateLimiter(rate: limits.effectiveCompanySignInsPerSecond, burst: limits.effectiveCompanySignInBurst, clock: clock)
        let perMinute = Double(limits.effectiveSignInsPerMinute)
        identifier = RateLimiter(rate: perMinute / 60, burst: perMinute, clock: clock)
        failures = RateLimiter(rate: limits.effectiveSignInFailuresPerSecond, burst: limits.effectiveSignInFailureBurst,
                               clock: clock)
    }

    /// Refuses with a 429 an address that has failed to sign in as often as it may.
    func admitAddress(_ address: String?) throws {
        guard let address, let wait = failures.retryAfter(address, taking: false) else { return }
        throw HTTPError.limitExceeded("too many failed sign-ins from this address: at most \(failures.rate.limitText) a second "
                                      + "(limits.sign_in_failures_per_second) after a burst of \(failures.burst.limitText) "
                                      + "(limits.sign_in_failure_burst)", retryAfter: wait)
    }

    /// Counts a failed sign-in against the address it came from.
    func chargeFailure(_ address: String?) {
        guard let address else { return }
        _ = failures.retryAfter(address)
    }

    /// Takes one sign-in of the company's bucket, or refuses with a 429.
    func admitCompany(_ key: String) throws {
        guard let wait = company.retryAfter(key) else { return }
        throw HTTPError.limitExceeded("too many sign-ins for the company: at most \(company.rate.limitText) a second "
                                      + "(limits.company_sign_ins_per_second) after a burst of \(company.burst.limitText) "
                                      + "(limits.company_sign_in_burst)", retryAfter: wait)
    }

    /// Takes one sign-in of the identifier's bucket, or refuses with a 429.
    func admitIdentifier(_ name: String) throws {
        guard let wait = identifier.retryAfter(name) else { return }
        throw HTTPError.limitExceeded("too many sign-ins as this identifier: at most \(identifier.burst.limitText) a minute "
                                      + "(limits.sign_ins_per_minute)", retryAfter: wait)
    }
}
