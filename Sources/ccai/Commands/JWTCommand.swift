import CCAIWire
import Foundation

/// `ccai jwt sign`: signs an end-user JWT the way a company backend would.
struct JWTCommand: Command {
    static let secretOption = OptionSpec("--secret", value: "SECRET",
                                         help: "the company secret (visible in ps: prefer the next two)")
    static let secretFile = OptionSpec("--secret-file", value: "FILE", help: "read the secret from the first line of FILE "
                                       + "(without either, \(CompanySecret.environmentVariable) is used)")
    static let algorithmOption = OptionSpec("--alg", value: "ALG", help: "HS384 (default) or HS256")
    static let claimsOption = OptionSpec("--claims", value: "JSON", help: "the claims to sign (default: {}); - reads them "
                                         + "from standard input, as ccai run --jwt-command passes them")
    static let ttl = OptionSpec("--ttl", value: "SECONDS", help: "lifetime of the token (default: 600; at most 100 years)")

    static let spec = CommandSpec(
        ["jwt", "sign"], abstract: "sign an end-user JWT with a company secret",
        discussion: """
            Signs an end-user JWT with the company secret and prints it. The claims are a JSON
            object (for example {"identifier":"user-1","name":"Ana","email":"ana@acme.test"});
            iat is set to now and exp to now + ttl.
            """,
        options: [secretOption, secretFile, algorithmOption, claimsOption, ttl])

    var secret: String
    var algorithm = JWTAlgorithm.hs384
    var claims: [String: JSONValue] = [:]
    var lifetime: TimeInterval = 600

    init(_ arguments: ParsedArguments) throws {
        if let value = arguments.positionals.first { throw Self.spec.usageError("unexpected argument '\(value)'") }
        algorithm = try arguments.last(Self.algorithmOption) { value in
            guard let algorithm = JWTAlgorithm(rawValue: value.uppercased()) else {
                throw Self.spec.usageError("--alg must be HS384 or HS256, got '\(value)'")
            }
            return algorithm
        } ?? .hs384
        claims = try arguments.last(Self.claimsOption) { given in
            let value = given == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : given
            guard let object = (try? JSONValue(jsonText: value))?.objectValue else {
                throw Self.spec.usageError("--claims must be a JSON object, got '\(value)'")
            }
            return object
        } ?? [:]
        lifetime = try arguments.last(Self.ttl) { value in
            guard let seconds = TimeInterval(value), seconds > 0, seconds <= Checked.maximumSeconds else {
                throw Self.spec.usageError("--ttl expects a positive number of seconds (at most 100 years), got '\(value)'")
            }
            return seconds
        } ?? 600
        let secret = arguments.last(Self.secretOption), secretFile = arguments.last(Self.secretFile)
        if secret != nil, secretFile != nil { throw Self.spec.usageError("--secret and --secret-file exclude each other") }
        guard let secret = try CompanySecret.resolve(value: secret, file: secretFile, fileOption: Self.secretFile.name,
                                                     command: Self.spec.topic),
            !secret.isEmpty
        else {
            throw Self.spec.usageError("jwt sign needs --secret, --secret-file or \(CompanySecret.environmentVariable)")
        }
        self.secret = secret
    }

    func execute() throws -> ExitStatus {
        print(try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: Date(), lifetime: lifetime))
        return .success
    }
}
