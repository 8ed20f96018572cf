import CCAIWire
import Foundation
import Timekeeping

/// The custom data a new chat or call keeps for its session, checked: the unsigned part
/// without reserved CRM keys; the signed part the sign-in's signed claims with the
/// request's own signed JWT (verified with the company secret) over them key by key, its
/// reserved CRM keys booleans; each part within ``FieldLimits/customDataBytes``.
///
/// ```swift
/// let data = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, session: session)
/// data["signed"]?["vip"]   // true
/// ```
struct CustomDataIntake: Sendable {
    let configuration: SandboxConfiguration
    let clock: any TimeSource

    /// `{ unsigned = ..., signed = ... }`, each part present when there is one; an error
    /// names what is refused.
    func sessionData(_ requested: CustomData?, caller: Caller) throws -> JSONValue {
        let signed = try signedCustomData(requested?.signed, caller: caller)
        var customData = try requested?.unsigned.map { try JSONValue(encoding: CustomData(unsigned: $0)) }
        if let unsigned = customData?["unsigned"] {
            let problems = ReservedCRMKey.problems(in: unsigned, signed: false)
            guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        }
        if requested?.signed != nil { customData = ["signed": signed] }
        for (part, value) in [("custom_data.unsigned", customData?["unsigned"]), ("custom_data.signed", signed)] {
            guard let value else { continue }
            let size = try value.jsonText().utf8.count
            if let problem = FieldLimits.problem(part, size: size, limit: FieldLimits.customDataBytes) { throw HTTPError.badRequest(problem) }
        }
        var data = customData?.objectValue ?? [:]
        if signed != [:] { data["signed"] = signed }
        return .object(data)
    }

    /// The signed part: the auth JWT's claims, with the session's own signed JWT
    /// (verified with the company secret) over it key by key. Reserved CRM keys must be
    /// booleans.
    private func signedCustomData(_ jwt: String?, caller: Caller) throws -> JSONValue {
        var signed = caller.signedCustomData.objectValue ?? [:]
        guard let jwt else { return .object(signed) }
        let company = configuration.company
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier(secret: company.secret, algorithms: configuration.algorithms,
                                     maximumLifetime: company.jwtMaxLifetimeSeconds ?? 86_400).verify(jwt, now: clock.now())
        } catch let error as JWTError {
            throw HTTPError.badRequest("custom_data.signed: the JWT is refused: \(error)")
        }
        let data = claims["custom_data"] ?? [:]
        let problems = ReservedCRMKey.problems(in: data, signed: true)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        for (key, value) in data.objectValue ?? [:] { signed[key] = value }
        return .object(signed)
    }
}
