import Foundation

/// Configuration of ``CCAI/initialize(options:)`` (seed 004).
///
/// ```swift
/// let options = InitOptions(key: "dev-key", urlHost: "127.0.0.1:8787", delegate: authController)
/// try ccai.initialize(options: options)
/// ```
public struct InitOptions: Sendable {
    /// The company key.
    public let key: String
    /// The platform host (`my-instance.uc1.ccaiplatform.com`). `https://` is used unless a
    /// scheme is given or the host is a loopback address (then `http://`).
    public let urlHost: String
    /// The preferred language; nil lets the SDK resolve one (seed 000: device language,
    /// then its parent dialect, then English, among the company's languages).
    public var languageCode: String?
    /// Receives the SDK's requests for authentication.
    public weak var delegate: CCAIDelegate?
    /// Whether the auth token is cached on disk between runs (default true).
    public let cacheAuthToken: Bool
    /// Where cached tokens are kept (Linux's stand-in for the Keychain): by default
    /// `$XDG_DATA_HOME/ccai/tokens` or `~/.local/share/ccai/tokens`, files with mode 0600.
    public var tokenDirectory: String?

    public init(key: String, urlHost: String, delegate: CCAIDelegate? = nil, languageCode: String? = nil,
                cacheAuthToken: Bool = true, tokenDirectory: String? = nil) {
        self.key = key
        self.urlHost = urlHost
        self.delegate = delegate
        self.languageCode = languageCode
        self.cacheAuthToken = cacheAuthToken
        self.tokenDirectory = tokenDirectory
    }

    /// The base URL of the platform's API: `urlHost` as given when it has a scheme (an
    /// operator's explicit `http://` stays), else `https://` and the host, except for
    /// `localhost` and literal loopback addresses (127.0.0.0/8 as a dotted quad, `::1`),
    /// which get `http://`. A name that only starts like one (`127.attacker.example`,
    /// `127.0.0.1@attacker.example`) is not loopback.
    ///
    /// ```swift
    /// InitOptions(key: "k", urlHost: "127.0.0.1:8787").baseURL          // "http://127.0.0.1:8787"
    /// InitOptions(key: "k", urlHost: "127.attacker.example").baseURL    // "https://127.attacker.example"
    /// ```
    public var baseURL: String {
        if urlHost.contains("://") { return urlHost.hasSuffix("/") ? String(urlHost.dropLast()) : urlHost }
        let (host, authority) = InitOptions.host(of: urlHost)
        return (InitOptions.isLoopback(host) ? "http://" : "https://") + authority
    }

    /// The host of `HOST[:PORT]`, and the authority to put in a URL (a bare IPv6 address
    /// in brackets): `[::1]:8787` is `::1`, `::1` is `::1` (`[::1]`), `a.b:80` is `a.b`.
    /// Anything after the host but a numeric port (`[::1].x`, `127.0.0.1:80@x`) leaves the
    /// whole text as the host, which is then no loopback address.
    private static func host(of authority: String) -> (host: String, authority: String) {
        func isPort(_ rest: Substring) -> Bool {
            rest.isEmpty || rest.first == ":" && rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
        }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            guard isPort(authority[authority.index(after: close)...]) else { return (authority, authority) }
            return (String(authority[authority.index(after: authority.startIndex)..<close]), authority)
        }
        if authority.filter({ $0 == ":" }).count > 1 { return (authority, "[\(authority)]") }
        guard let colon = authority.firstIndex(of: ":") else { return (authority, authority) }
        guard isPort(authority[colon...]) else { return (authority, authority) }
        return (String(authority[..<colon]), authority)
    }

    /// Whether `host` is `localhost` or a literal loopback address.
    private static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 { return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127 }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, host, &ipv6) == 1 else { return false }
        return withUnsafeBytes(of: &ipv6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}

/// The app's side of authentication (seed 004): asked for an auth token whenever the SDK
/// needs one (first use, or after the platform refused the cached one). It typically signs
/// a JWT on a backend and calls ``AuthService/authenticate(_:)``.
public protocol CCAIDelegate: AnyObject, Sendable {
    func ccaiShouldAuthenticate() async -> String?
}

/// A delegate that can say why it provided no token (not in the seeds): the SDK puts the
/// reason into its `unauthenticated` error instead of only "no auth token".
///
/// ```swift
/// final class Backend: CCAIDelegate, CCAIAuthenticationDiagnostics {
///     var lastAuthenticationFailure: Error?   // set when ccaiShouldAuthenticate returns nil
/// }
/// ```
public protocol CCAIAuthenticationDiagnostics: AnyObject {
    /// Why the last `ccaiShouldAuthenticate()` returned nil (a refusal, a network error).
    var lastAuthenticationFailure: Error? { get }
}
