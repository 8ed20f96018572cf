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

    /// The base URL of the platform's API.
    var baseURL: String {
        if urlHost.contains("://") { return urlHost.hasSuffix("/") ? String(urlHost.dropLast()) : urlHost }
        let host = urlHost.split(separator: ":").first.map(String.init) ?? urlHost
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "[::1]"
        return (loopback ? "http://" : "https://") + urlHost
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
