import CCAIKit
import CCAIWire
import Foundation

/// Whom a script may be on a real platform (`ccai run --host`): the end-user identifiers
/// the host signs JWTs for (globs, `--identities`; by default `vu-*`, the scenario
/// runner's own naming) and the keys of signed custom data it signs (`--signed-claims`;
/// by default none), which also say whether the profile's `name`, `email` and `phone` go
/// into the JWT. The operator sets it on the command line; a script cannot change it.
/// Anything else is refused with `forbidden`, naming the flag that would allow it.
///
/// ```swift
/// let policy = IdentityPolicy(identities: ["vu-*"], signedClaims: ["order_id"])
/// try policy.permit(identifier: "vu-7")               // fine
/// try policy.permit(identifier: "real-customer-42")   // CCAIError forbidden, names --identities
/// ```
public struct IdentityPolicy: Sendable, Equatable {
    /// The identities a script may take unless the operator says otherwise.
    public static let defaultIdentities = ["vu-*"]

    /// Globs (fnmatch(3): `*`, `?`, `[...]`, `\` escapes) an identifier must match one of.
    public let identities: [String]
    /// The keys signed custom data may have.
    public let signedClaims: Set<String>

    public init(identities: [String] = IdentityPolicy.defaultIdentities, signedClaims: Set<String> = []) {
        self.identities = identities
        self.signedClaims = signedClaims
    }

    /// What is wrong with `pattern` as an identity glob, if anything: empty, a control
    /// character, or a `[` that no `]` closes.
    public static func problem(withPattern pattern: String) -> String? {
        if pattern.isEmpty { return "the pattern is empty" }
        if hasControlCharacter(pattern) {
            return "the pattern '\(TerminalText.escaped(pattern))' has a control character"
        }
        var scalars = pattern.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\\": _ = scalars.next()
            case "[":
                // The first member (after `!` or `^`) may be `]` itself; the set ends at the next `]`.
                var first = scalars.next()
                if first == "!" || first == "^" { first = scalars.next() }
                var closed = false
                while first != nil, let inner = scalars.next() {
                    if inner == "]" {
                        closed = true
                        break
                    }
                }
                if !closed { return "the pattern '\(pattern)' has a '[' that no ']' closes" }
            default: break
            }
        }
        return nil
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether `identifier` matches one of the globs, whole: one with a control character
    /// (a NUL would end the C string fnmatch(3) reads) matches none.
    public func allows(identifier: String) -> Bool {
        !Self.hasControlCharacter(identifier) && identities.contains { fnmatch($0, identifier, 0) == 0 }
    }

    /// Throws `forbidden` unless `identifier` matches one of the globs.
    public func permit(identifier: String) throws {
        guard !allows(identifier: identifier) else { return }
        if Self.hasControlCharacter(identifier) {
            throw CCAIError(code: .forbidden, message: "the host signs no identifier with a control character: "
                                + "'\(TerminalText.escaped(identifier))' has one")
        }
        let patterns = identities.map { "'\($0)'" }.joined(separator: ", ")
        throw CCAIError(code: .forbidden,
                        message: "the host signs in only as identifiers matching --identities (\(patterns)): "
                            + "'\(TerminalText.escaped(identifier))' is not one; the operator may allow it with --identities PATTERN")
    }

    /// The profile claims a JWT may carry only when ``signedClaims`` names them: a JWT's
    /// claims are what the platform takes as verified, and a script sets these as it likes.
    public static let profileClaims = ["name", "email", "phone"]

    /// Of the end user's profile, the claims the host signs: `name`, `email` and `phone`
    /// when ``signedClaims`` names them, left out of the JWT otherwise.
    public func signedProfile(of user: EndUser) -> [String: String] {
        let fields = ["name": user.name, "email": user.email, "phone": user.phone]
        return fields.compactMapValues { $0 }.filter { signedClaims.contains($0.key) }
    }

    /// Throws `forbidden` unless every key of the signed custom data (`claims["custom_data"]`,
    /// and any other claim) is one of ``signedClaims``.
    public func permit(signedClaims claims: [String: JSONValue]) throws {
        var keys: [String] = []
        for (key, value) in claims {
            if key == "custom_data", case .object(let data) = value { keys += data.keys } else { keys.append(key) }
        }
        let refused = keys.filter { !signedClaims.contains($0) }.sorted()
        guard !refused.isEmpty else { return }
        let allowed = signedClaims.isEmpty ? "none" : signedClaims.sorted().joined(separator: ",")
        throw CCAIError(code: .forbidden,
                        message: "the host signs only the signed claims --signed-claims names (\(allowed)): "
                            + refused.map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                            + " \(refused.count == 1 ? "is" : "are") not; the operator may allow \(refused.count == 1 ? "it" : "them") "
                            + "with --signed-claims KEY,...")
    }
}
