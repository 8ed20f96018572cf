import CCAIKit
import CCAIWire
import Foundation

/// Plays the app's backend for scripts (docs/lua-runtime.md, the sandbox): when the SDK needs an auth
/// token, it produces the end user's JWT (signed with the company secret, or printed by a
/// command) and exchanges it. The secret never reaches a script.
///
/// The JWT's claims come from the SDK's end-user record when the script set one
/// (`ccai.end_user.update_end_user{ identifier = ..., name = ... }`), else from `identity`.
public final class HostAuthenticator: CCAIDelegate, ClaimsSigner, @unchecked Sendable {
    public enum Signing: Sendable {
        /// Sign with the company secret.
        case secret(String, JWTAlgorithm)
        /// Run a shell command that prints the JWT. The identity comes as one JSON object
        /// (`{"identifier": ..., "name": ..., "email": ..., "phone": ...}`) on its standard
        /// input and in `CCAI_CLAIMS`, and field by field in `CCAI_IDENTIFIER`, `CCAI_NAME`,
        /// `CCAI_EMAIL`, `CCAI_PHONE`. Never paste those into JSON in the shell: a
        /// script-chosen identifier could add claims. Pass the document through
        /// (`ccai jwt sign --secret-file F --claims -`).
        case command(String)
    }

    private let signing: Signing
    private let identity: EndUser
    private weak var ccai: CCAI?

    public init(signing: Signing, identity: EndUser, ccai: CCAI) {
        self.signing = signing
        self.identity = identity
        self.ccai = ccai
    }

    public func ccaiShouldAuthenticate() async -> String? {
        guard let ccai, let jwt = try? makeJWT() else { return nil }
        return try? await ccai.authService?.authenticate(jwt)
    }

    /// The end user the next JWT is for.
    var endUser: EndUser {
        guard let record = ccai?.endUserService?.endUser, record.identifier != nil else { return identity }
        return record
    }

    /// Signs custom claims (signed custom data); only with the company secret.
    public func signClaims(_ claims: [String: JSONValue]) throws -> String {
        guard case .secret(let secret, let algorithm) = signing else {
            throw CCAIError(code: .invalidArgument, message: "signed custom data needs the company secret (not --jwt-command)")
        }
        return try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: Date(), lifetime: 600)
    }

    func makeJWT() throws -> String {
        let user = endUser
        var claims: [String: JSONValue] = ["identifier": .string(user.identifier ?? "anonymous")]
        if let name = user.name { claims["name"] = .string(name) }
        if let email = user.email { claims["email"] = .string(email) }
        if let phone = user.phone { claims["phone"] = .string(phone) }
        switch signing {
        case .secret(let secret, let algorithm):
            return try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: Date(), lifetime: 600)
        case .command(let command):
            let document = try JSONValue.object(claims).jsonText()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            var environment = ProcessInfo.processInfo.environment
            environment["CCAI_CLAIMS"] = document
            environment["CCAI_IDENTIFIER"] = user.identifier
            environment["CCAI_NAME"] = user.name
            environment["CCAI_EMAIL"] = user.email
            environment["CCAI_PHONE"] = user.phone
            process.environment = environment
            let output = Pipe(), input = Pipe()
            process.standardOutput = output
            process.standardInput = input
            // A command that never reads its input must not kill the host with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            try process.run()
            try? input.fileHandleForWriting.write(contentsOf: Data(document.utf8))
            try? input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CCAIError(code: .unauthenticated, message: "the JWT command exited with \(process.terminationStatus)")
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
