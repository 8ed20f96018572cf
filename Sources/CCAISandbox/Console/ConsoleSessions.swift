import CCAIWire
import Foundation
import Synchronization
import Timekeeping

/// Who is signed in at the sandbox's console: a session per sign-in with the admin token,
/// named by a random id the browser keeps in an `HttpOnly`, `SameSite=Strict` cookie, with
/// a CSRF token every change must carry in `X-CSRF-Token`. At most ``maximum`` sessions,
/// each for ``lifetime`` seconds; in memory only (a restart signs everyone out). Bad
/// tokens are charged to the address they came from: after ``failureBurst`` of them, one
/// every ``secondsPerFailure`` seconds, so a weak `admin_token` is not guessed at speed.
final class ConsoleSessions: Sendable {
    /// The cookie's name.
    static let cookieName = "ccai_console"
    static let maximum = 32
    static let lifetime: TimeInterval = 12 * 3_600

    struct Session: Sendable {
        var id: String
        var csrf: String
        var expires: Date
    }

    static let failureBurst = 10.0
    static let secondsPerFailure = 6.0

    private let sessions = Mutex<[String: Session]>([:])
    private let failures: RateLimiter<String>

    init(clock: any TimeSource = SystemClock()) {
        failures = RateLimiter(rate: 1 / Self.secondsPerFailure, burst: Self.failureBurst, clock: clock)
    }

    /// Refuses with a 429 an address past its bad tokens (requests answered in process
    /// have no address and count as one).
    func admitSignIn(from address: String?) throws {
        guard let wait = failures.retryAfter(address ?? "", taking: false) else { return }
        throw HTTPError.limitExceeded("too many wrong admin tokens from this address: \(Int(Self.failureBurst)), then one every "
                                      + "\(Int(Self.secondsPerFailure)) seconds", retryAfter: wait)
    }

    /// Counts a wrong token against the address it came from.
    func chargeFailedSignIn(from address: String?) {
        _ = failures.retryAfter(address ?? "")
    }

    /// A new session from `now`; the oldest goes when there are ``maximum``.
    func open(now: Date) -> Session {
        let session = Session(id: Digest.randomHex(bytes: 32), csrf: Digest.randomHex(bytes: 32), expires: now.addingTimeInterval(Self.lifetime))
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            if sessions.count >= Self.maximum, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
                sessions[oldest.key] = nil
            }
            sessions[session.id] = session
        }
        return session
    }

    /// The session the request's `Cookie` header names, if it is open.
    func session(of request: HTTPRequest, now: Date) -> Session? {
        guard let id = Self.cookie(request.headers["cookie"]) else { return nil }
        return sessions.withLock { sessions in
            guard let found = sessions.first(where: { ConstantTime.equal($0.key, id) })?.value, found.expires > now else { return nil }
            return found
        }
    }

    func close(_ session: Session) {
        _ = sessions.withLock { $0.removeValue(forKey: session.id) }
    }

    /// The `Set-Cookie` value of `session` (nil: the one that clears it).
    static func setCookie(_ session: Session?) -> String {
        guard let session else { return "\(cookieName)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0" }
        return "\(cookieName)=\(session.id); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(Int(lifetime))"
    }

    /// The session id in a `Cookie` header.
    private static func cookie(_ header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
