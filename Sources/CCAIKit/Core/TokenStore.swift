import Foundation

/// Where the auth token lives between runs: memory, and (when caching is on) a file only
/// its owner can read, per company key and host.
final class TokenStore: @unchecked Sendable {
    private let lock = NSLock()
    private var token: String?
    private let file: URL?

    init(options: InitOptions) {
        guard options.cacheAuthToken else {
            file = nil
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let base = options.tokenDirectory.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share"))
                .appendingPathComponent("ccai/tokens")
        let name = "\(options.key)@\(options.urlHost)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        file = base.appendingPathComponent(String(name) + ".token")
        token = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if token?.isEmpty == true { token = nil }
    }

    var current: String? { lock.withLock { token } }

    /// Replaces (or with nil, forgets) the token, in memory and on disk.
    func update(_ newToken: String?) {
        lock.withLock {
            token = newToken
            guard let file else { return }
            if let newToken {
                let folder = file.deletingLastPathComponent().path
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])
                // A cache that cannot be written costs a re-authentication, nothing more.
                _ = FileManager.default.createFile(atPath: file.path, contents: Data(newToken.utf8),
                                                   attributes: [.posixPermissions: 0o600])
            } else {
                try? FileManager.default.removeItem(at: file)
            }
        }
    }

    /// The file the token is cached in, if caching is on.
    var path: String? { file?.path }
}
