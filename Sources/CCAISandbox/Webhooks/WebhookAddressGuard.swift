import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The SSRF guard of webhook URLs: a sandbox POSTs only to `http` or `https` URLs without
/// credentials, whose host resolves to loopback addresses only (127.0.0.0/8, ::1) unless
/// the configuration sets `allow_remote = true`. The URL is checked when the configuration
/// is read and again before every attempt (DNS may answer differently later); the
/// addresses checked are the ones the transport connects to (``WebhookRequest/pinnedAddresses``),
/// so a name cannot resolve to loopback for the check and elsewhere for the connection.
///
/// ```swift
/// let addressGuard = WebhookAddressGuard(allowRemote: false)
/// let target = try addressGuard.target("http://localhost:9000/hooks")
/// let addresses = try addressGuard.addresses(of: target)   // ["127.0.0.1", "::1"]
/// ```
public struct WebhookAddressGuard: Sendable {
    /// A URL the guard accepted: its parts as the transport needs them.
    public struct Target: Sendable, Equatable {
        public var url: String
        /// The host without IPv6 brackets.
        public var host: String
        public var port: Int
        /// Whether `host` is an IP literal (nothing to resolve or pin).
        public var isLiteral: Bool
    }

    /// Resolves a host name to IP literals; throws when it does not resolve.
    public typealias Resolver = @Sendable (_ host: String) throws -> [String]

    public var allowRemote: Bool
    public var resolve: Resolver

    /// A guard resolving names with the system's resolver (`getaddrinfo`) unless given one.
    public init(allowRemote: Bool, resolve: @escaping Resolver = WebhookAddressGuard.systemResolve) {
        self.allowRemote = allowRemote
        self.resolve = resolve
    }

    /// Checks the URL's form: scheme, host, no credentials, a port that exists.
    public func target(_ text: String) throws -> Target {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw WebhookAddressError.badURL(text)
        }
        guard scheme == "http" || scheme == "https" else { throw WebhookAddressError.scheme(scheme) }
        guard components.user == nil, components.password == nil else { throw WebhookAddressError.credentials }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw WebhookAddressError.badURL(text) }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw WebhookAddressError.badURL(text) }
        return Target(url: text, host: host, port: port, isLiteral: Self.isIPLiteral(host))
    }

    /// The addresses the target's host stands for, each allowed: the literal itself, or
    /// what the name resolves to now. Throws ``WebhookAddressError/notLoopback(host:addresses:)``
    /// when any is not loopback (unless remote addresses are allowed), and
    /// ``WebhookAddressError/unresolvable(host:reason:)`` when the name does not resolve.
    public func addresses(of target: Target) throws -> [String] {
        let addresses = target.isLiteral ? [target.host] : try resolveChecked(target.host)
        guard !allowRemote else { return addresses }
        let outside = addresses.filter { !Self.isLoopback($0) }
        guard outside.isEmpty else { throw WebhookAddressError.notLoopback(host: target.host, addresses: outside) }
        return addresses
    }

    private func resolveChecked(_ host: String) throws -> [String] {
        let addresses: [String]
        do {
            addresses = try resolve(host)
        } catch let error as WebhookAddressError {
            throw error
        } catch {
            throw WebhookAddressError.unresolvable(host: host, reason: String(describing: error))
        }
        guard !addresses.isEmpty else { throw WebhookAddressError.unresolvable(host: host, reason: "no address") }
        return addresses
    }

    /// Whether `address` (an IP literal) is a loopback address: 127.0.0.0/8, ::1, or an
    /// IPv4-mapped 127.x (::ffff:127.0.0.1). Anything else (0.0.0.0 included) is not.
    public static func isLoopback(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
    }

    /// Whether `host` is an IPv4 or IPv6 literal in its strict form (`inet_pton`): a name
    /// like `2130706433` is resolved, and pinned, like any other.
    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The system's resolver: every IPv4 and IPv6 address of `host`, without duplicates.
    public static let systemResolve: Resolver = { host in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else { throw WebhookAddressError.unresolvable(host: host, reason: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            if let text = numericHost(current.pointee.ai_addr, current.pointee.ai_addrlen), !addresses.contains(text) {
                addresses.append(text)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    private static func numericHost(_ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why the guard refused a webhook URL.
public enum WebhookAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    case badURL(String)
    case scheme(String)
    case credentials
    case unresolvable(host: String, reason: String)
    case notLoopback(host: String, addresses: [String])

    public var description: String {
        switch self {
        case .badURL(let text): return "'\(text.prefix(200))' is not a URL with a host (http://127.0.0.1:9000/hooks, say)"
        case .scheme(let scheme): return "the scheme '\(scheme.prefix(20))' is not allowed: http or https expected"
        case .credentials: return "the URL must not carry a user name or password"
        case .unresolvable(let host, let reason): return "the host '\(host.prefix(200))' does not resolve: \(reason)"
        case .notLoopback(let host, let addresses):
            return "the host '\(host.prefix(200))' resolves to \(addresses.prefix(4).joined(separator: ", ")), not only loopback "
                + "addresses; set allow_remote = true to deliver beyond this machine"
        }
    }
}
