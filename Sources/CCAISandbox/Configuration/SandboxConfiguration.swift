import CCAIWire
import Foundation
import LuaRuntime

/// What an admin would set in the portal (LUA-API section 9). A configuration file is a
/// Lua chunk returning a table with these fields in snake_case; fields of later slices
/// (menus, agents, surveys...) are read by the parts that use them.
///
/// ```lua
/// return { company = { name = "Acme", support_email = "help@acme.test", languages = { "en", "es" },
///                      time_zone = "America/Los_Angeles", key = "dev-key", secret = "dev-secret",
///                      jwt_algorithms = { "HS384", "HS256" } } }
/// ```
public struct SandboxConfiguration: Codable, Sendable {
    public struct Company: Codable, Sendable {
        public var name: String
        public var supportEmail: String?
        /// Supported language codes, the default first.
        public var languages: [String]
        public var timeZone: String
        public var preventDirectPstnCall: Bool?
        /// The company key SDKs initialize with.
        public var key: String
        /// The secret end-user JWTs are signed with. Never readable from scripts.
        public var secret: String
        /// Accepted JWT algorithms (default both `HS384` and `HS256`).
        public var jwtAlgorithms: [String]?
        /// Lifetime of auth tokens in seconds (default one day).
        public var authTokenSeconds: Double?

        public init(name: String, supportEmail: String?, languages: [String], timeZone: String,
                    preventDirectPstnCall: Bool?, key: String, secret: String, jwtAlgorithms: [String]?,
                    authTokenSeconds: Double?) {
            self.name = name
            self.supportEmail = supportEmail
            self.languages = languages
            self.timeZone = timeZone
            self.preventDirectPstnCall = preventDirectPstnCall
            self.key = key
            self.secret = secret
            self.jwtAlgorithms = jwtAlgorithms
            self.authTokenSeconds = authTokenSeconds
        }
    }

    public var company: Company

    public init(company: Company) {
        self.company = company
    }

    /// A realistic company that exercises every feature (the default of `ccai run` and
    /// `ccai sandbox serve`).
    public static let builtIn = SandboxConfiguration(company: Company(
        name: "Acme", supportEmail: "help@acme.test", languages: ["en", "es"], timeZone: "America/Los_Angeles",
        preventDirectPstnCall: false, key: "dev-key", secret: "dev-secret", jwtAlgorithms: ["HS384", "HS256"],
        authTokenSeconds: 86_400))

    /// The accepted JWT algorithms.
    public var algorithms: Set<JWTAlgorithm> {
        Set((company.jwtAlgorithms ?? ["HS384", "HS256"]).compactMap { JWTAlgorithm(rawValue: $0.uppercased()) })
    }

    /// Checks what decoding cannot: non-empty keys, known algorithms and time zone.
    public func validate() throws {
        func fail(_ field: String, _ problem: String) -> ConfigurationError {
            ConfigurationError(message: "company.\(field): \(problem)")
        }
        if company.key.isEmpty { throw fail("key", "must not be empty") }
        if company.secret.isEmpty { throw fail("secret", "must not be empty") }
        if company.languages.isEmpty { throw fail("languages", "needs at least one language code") }
        if TimeZone(identifier: company.timeZone) == nil {
            throw fail("time_zone", "'\(company.timeZone)' is not an IANA time zone (e.g. America/Los_Angeles)")
        }
        for name in company.jwtAlgorithms ?? [] where JWTAlgorithm(rawValue: name.uppercased()) == nil {
            throw fail("jwt_algorithms", "'\(name)' is not supported (HS384 or HS256)")
        }
        if algorithms.isEmpty { throw fail("jwt_algorithms", "needs HS384, HS256 or both") }
        if let seconds = company.authTokenSeconds, !(seconds > 0) {
            throw fail("auth_token_seconds", "must be a positive number of seconds")
        }
    }

    /// Reads a configuration file: a Lua chunk run in the sandboxed runtime.
    public static func load(file path: String) async throws -> SandboxConfiguration {
        let state = try LuaState(limits: LuaLimits(memoryBytes: 32 << 20, instructions: 50_000_000, seconds: 5))
        let value: LuaValue
        do {
            value = try await state.run(file: path).first ?? .nil
        } catch let error as LuaScriptError {
            throw ConfigurationError(message: "\(path): \(error.message)")
        }
        await state.close()
        guard case .table = value else {
            throw ConfigurationError(message: "\(path): the file must return a table, got \(value.typeName)")
        }
        do {
            let configuration = try LuaDecoder().decode(SandboxConfiguration.self, from: value)
            try configuration.validate()
            return configuration
        } catch let error as DecodingError {
            throw ConfigurationError(message: "\(path): \(ConfigurationError.describe(error))")
        } catch let error as ConfigurationError {
            throw ConfigurationError(message: "\(path): \(error.message)")
        }
    }
}

/// A configuration that cannot be used, with the field at fault.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0 + 1)]" } ?? LuaKeyStrategy.snakeCased($0.stringValue) }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is required"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the configuration does not have the expected shape"
        }
    }
}
