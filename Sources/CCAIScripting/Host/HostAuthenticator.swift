import CCAIKit
import CCAIWire
import Foundation

/// Plays the app's backend for scripts (docs/lua-runtime.md, the sandbox): when the SDK needs an auth
/// token, it produces the end user's JWT (signed with the company secret, or printed by a
/// command) and exchanges it. The secret never reaches a script.
///
/// The JWT's claims come from the SDK's end-user record when the script set one
/// (`ccai.end_user.update_end_user{ identifier = ..., name = ... }`), else from `identity`.
/// With a `policy` (a real platform, `--host`), the host signs, or asks the JWT command
/// for, only the identifiers and signed claims the operator allowed; without one (the
/// embedded sandbox) a script may be anyone.
public final class HostAuthenticator: CCAIDelegate, CCAIAuthenticationDiagnostics, ClaimsSigner, @unchecked Sendable {
    public enum Signing: Sendable {
        /// Sign with the company secret. Unless `pinned`, a platform that refuses the
        /// algorithm as unsupported gets the other one (HS384 <-> HS256), once.
        case secret(String, JWTAlgorithm, pinned: Bool = false)
        /// Run a shell command that prints the JWT. The identity comes as one JSON object
        /// (`{"identifier": ..., "name": ..., "email": ..., "phone": ...}`) on its standard
        /// input and in `CCAI_CLAIMS`, and field by field in `CCAI_IDENTIFIER`, `CCAI_NAME`,
        /// `CCAI_EMAIL`, `CCAI_PHONE`. Never paste those into JSON in the shell: a
        /// script-chosen identifier could add claims. Pass the document through
        /// (`ccai jwt sign --secret-file F --claims -`).
        case command(String)
    }

    private let lock = NSLock()
    private var signing: Signing
    private var failure: Error?
    private let identity: EndUser
    private let policy: IdentityPolicy?
    private weak var ccai: CCAI?

    public init(signing: Signing, identity: EndUser, ccai: CCAI, policy: IdentityPolicy? = nil) {
        self.signing = signing
        self.identity = identity
        self.ccai = ccai
        self.policy = policy
    }

    public var lastAuthenticationFailure: Error? { lock.withLock { failure } }

    public func ccaiShouldAuthenticate() async -> String? {
        guard let ccai, let service = ccai.authService else { return nil }
        do {
            do {
                let token = try await service.authenticate(try await makeJWT())
                lock.withLock { failure = nil }
                return token
            } catch let error as CCAIError where error.code == .unauthenticated && switchAlgorithm(after: error) {
                let token = try await service.authenticate(try await makeJWT())
                lock.withLock { failure = nil }
                return token
            }
        } catch {
            lock.withLock { failure = error }
            return nil
        }
    }

    /// When the platform refused the algorithm as unsupported and it is not pinned: the
    /// other one from now on; true when it changed.
    private func switchAlgorithm(after error: CCAIError) -> Bool {
        lock.withLock {
            guard case .secret(let secret, let algorithm, false) = signing,
                error.message.contains("unsupported signing algorithm '\(algorithm.rawValue)'")
            else { return false }
            signing = .secret(secret, algorithm == .hs384 ? .hs256 : .hs384, pinned: true)
            return true
        }
    }

    /// The end user the next JWT is for.
    var endUser: EndUser {
        guard let record = ccai?.endUserService?.endUser, record.identifier != nil else { return identity }
        return record
    }

    /// Signs custom claims (signed custom data); only with the company secret, and only the
    /// claims the policy allows.
    public func signClaims(_ claims: [String: JSONValue]) throws -> String {
        guard case .secret(let secret, let algorithm, _) = lock.withLock({ signing }) else {
            throw CCAIError(code: .invalidArgument, message: "signed custom data needs the company secret (not --jwt-command)")
        }
        try policy?.permit(signedClaims: claims)
        return try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: ccai?.clock.now() ?? Date(), lifetime: 600)
    }

    func makeJWT() async throws -> String {
        let user = endUser
        let identifier = user.identifier ?? "anonymous"
        try policy?.permit(identifier: identifier)
        var claims: [String: JSONValue] = ["identifier": .string(identifier)]
        // On a `--host`, the profile goes into the JWT (as verified) only as the operator allows.
        let profile = policy?.signedProfile(of: user)
            ?? ["name": user.name, "email": user.email, "phone": user.phone].compactMapValues { $0 }
        for (claim, value) in profile { claims[claim] = .string(value) }
        switch lock.withLock({ signing }) {
        case .secret(let secret, let algorithm, _):
            return try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: ccai?.clock.now() ?? Date(), lifetime: 600)
        case .command(let command):
            let document = try JSONValue.object(claims).jsonText()
            var environment = ProcessInfo.processInfo.environment
            environment["CCAI_CLAIMS"] = document
            environment["CCAI_IDENTIFIER"] = user.identifier
            environment["CCAI_NAME"] = profile["name"]
            environment["CCAI_EMAIL"] = profile["email"]
            environment["CCAI_PHONE"] = profile["phone"]
            // A command that never reads its input must not kill the host with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            let result = try await ChildProcess.run("/bin/sh", ["-c", command], environment: environment,
                                                    input: Data(document.utf8), errorsTo: .inherit)
            guard result.status == 0 else {
                throw CCAIError(code: .unauthenticated, message: "the JWT command exited with \(result.status)")
            }
            return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
