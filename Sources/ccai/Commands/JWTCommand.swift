import CCAIWire
import Foundation

/// `ccai jwt sign`: signs an end-user JWT the way a company backend would.
struct JWTCommand {
    static let help = """
        Usage: ccai jwt sign (--secret SECRET | --secret-file FILE) [--alg HS384|HS256]
                             [--claims JSON|-] [--ttl SECONDS]

        Signs an end-user JWT with the company secret and prints it. The claims are a JSON
        object (for example {"identifier":"user-1","name":"Ana","email":"ana@acme.test"});
        iat is set to now and exp to now + ttl.

        Options:
          --secret SECRET     the company secret (visible in ps: prefer the next two)
          --secret-file FILE  read the secret from the first line of FILE
                              (without either, CCAI_COMPANY_SECRET is used)
          --alg ALG           HS384 (default) or HS256
          --claims JSON       the claims to sign (default: {}); - reads them from
                              standard input, as ccai run --jwt-command passes them
          --ttl SECONDS       lifetime of the token (default: 600; at most 100 years)
        """

    var secret: String
    var algorithm = JWTAlgorithm.hs384
    var claims: [String: JSONValue] = [:]
    var lifetime: TimeInterval = 600

    init(arguments: [String]) throws {
        guard arguments.first == "sign" else {
            throw UsageError(message: arguments.first.map { "unknown jwt command '\($0)'" } ?? "jwt needs a command: sign",
                             command: "jwt")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()), command: "jwt")
        var secret: String?, secretFile: String?
        while let token = reader.next() {
            switch token {
            case .option("--secret"):
                secret = try reader.value(for: "--secret")
            case .option("--secret-file"):
                secretFile = try reader.value(for: "--secret-file")
            case .option("--alg"):
                let value = try reader.value(for: "--alg")
                guard let algorithm = JWTAlgorithm(rawValue: value.uppercased()) else {
                    throw UsageError(message: "--alg must be HS384 or HS256, got '\(value)'", command: "jwt")
                }
                self.algorithm = algorithm
            case .option("--claims"):
                var value = try reader.value(for: "--claims")
                if value == "-" { value = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
                guard let object = (try? JSONValue(jsonText: value))?.objectValue else {
                    throw UsageError(message: "--claims must be a JSON object, got '\(value)'", command: "jwt")
                }
                claims = object
            case .option("--ttl"):
                let value = try reader.value(for: "--ttl")
                guard let seconds = TimeInterval(value), seconds > 0, seconds <= Checked.maximumSeconds else {
                    throw UsageError(message: "--ttl expects a positive number of seconds (at most 100 years), got '\(value)'",
                                     command: "jwt")
                }
                lifetime = seconds
            case .option(let option):
                throw reader.unknown(option)
            case .positional(let value):
                throw UsageError(message: "unexpected argument '\(value)'", command: "jwt")
            }
        }
        if secret != nil, secretFile != nil {
            throw UsageError(message: "--secret and --secret-file exclude each other", command: "jwt")
        }
        guard let secret = try CompanySecret.resolve(value: secret, file: secretFile, fileOption: "--secret-file", command: "jwt"),
            !secret.isEmpty
        else {
            throw UsageError(message: "jwt sign needs --secret, --secret-file or \(CompanySecret.environmentVariable)", command: "jwt")
        }
        self.secret = secret
    }

    func execute() throws -> Int32 {
        print(try JWTSigner(algorithm: algorithm, secret: secret).sign(claims, issuedAt: Date(), lifetime: lifetime))
        return 0
    }
}
