import CCAIWire
import Foundation

/// One credential of the Apps API (`api_credentials = { { name = "ci", token = "..." } }`
/// in a configuration, as the portal's "API credentials" page adds them): a name, and a
/// token kept only as its SHA-256 digest, never as the text. A request authenticates with
/// HTTP Basic, the company's `subdomain` as the user name and a token as the password.
public struct APICredential: Codable, Sendable, Equatable {
    /// The shortest token accepted: 16 characters (our choice; the portal makes its own).
    public static let minimumTokenLength = 16

    public var name: String
    /// The token's SHA-256, 64 lowercase hex digits.
    public let tokenDigest: String
    /// The token's length in characters, checked with the configuration.
    let tokenLength: Int

    enum CodingKeys: String, CodingKey {
        case name, token
    }

    /// A credential whose token is `token` (its digest kept).
    public init(name: String, token: String) {
        self.name = name
        tokenDigest = Digest.sha256Hex(token)
        tokenLength = token.count
    }

    /// Reads `name` and `token`, keeping the token's digest.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name), token: try container.decode(String.self, forKey: .token))
    }

    /// Writes the name only: the token is not kept.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
    }
}

extension SandboxConfiguration {
    /// The Apps API's problems: a subdomain that is not one DNS label (letters, digits and
    /// inner hyphens, at most 63), credentials without a name or named twice, tokens shorter
    /// than ``APICredential/minimumTokenLength``.
    func apiCredentialProblems() -> [String] {
        var problems: [String] = []
        if let subdomain = company.subdomain, !Self.isDNSLabel(subdomain) {
            problems.append("company.subdomain: one DNS label expected (letters, digits and inner hyphens, at most 63), got '\(subdomain)'")
        }
        var names = Set<String>()
        for (index, credential) in (apiCredentials ?? []).enumerated() {
            if credential.name.isEmpty { problems.append("api_credentials[\(index + 1)].name: must not be empty") }
            if credential.tokenLength < APICredential.minimumTokenLength {
                problems.append("api_credentials[\(index + 1)].token: at least \(APICredential.minimumTokenLength) characters expected")
            }
            if !names.insert(credential.name).inserted {
                problems.append("api_credentials[\(index + 1)].name: '\(credential.name)' is used twice")
            }
        }
        return problems
    }

    private static func isDNSLabel(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
    }
}
