import Foundation

/// A secret a served sandbox needs, and where it came from: the bearer token of its
/// operator's routes (`GET /admin/ratings`) or the token of its Apps API credentials.
/// `--admin-token-file` (the admin token's), else the configuration's (`admin_token`,
/// `api_credentials`), else, with `--data DIR`, the one kept in `DIR/admin-token` or
/// `DIR/api-token` (made at the first run, mode 0600, so it survives restarts), else one
/// made up for this run.
///
/// ```swift
/// let admin = try ServeToken.resolve(.admin, file: nil, configured: nil, dataDirectory: "state")
/// printError("sandbox: " + admin.notice)
/// ```
struct ServeToken {
    /// What the token opens.
    enum Purpose {
        /// The operator's routes.
        case admin
        /// The Apps API, with the company's subdomain as the user name.
        case apps(subdomain: String)

        /// The file name under `--data`.
        var fileName: String {
            switch self {
            case .admin: "admin-token"
            case .apps: "api-token"
            }
        }

        var label: String {
            switch self {
            case .admin: "admin token (GET /admin/ratings)"
            case .apps(let subdomain): "Apps API token (Basic credentials: user \(subdomain), password the token)"
            }
        }
    }

    enum Origin: Equatable {
        case file(String)
        case configuration
        /// Kept in the data folder; `created` on this run.
        case dataDirectory(path: String, created: Bool)
        case madeUp
    }

    var purpose: Purpose
    var token: String
    var origin: Origin

    /// A token file is read only when it is at most this long.
    static let maximumFileBytes = 4096

    /// What `sandbox serve` says about the token on standard error: the token itself only
    /// when it was made on this run.
    var notice: String {
        switch origin {
        case .file(let path): return "\(purpose.label) read from \(path)"
        case .configuration: return "\(purpose.label) from the configuration"
        case .dataDirectory(let path, true): return "\(purpose.label): \(token) (kept in \(path) for later runs)"
        case .dataDirectory(let path, false): return "\(purpose.label) kept in \(path)"
        case .madeUp: return "\(purpose.label): \(token)"
        }
    }

    /// The token for `purpose`; `configured` is the configuration's (for the Apps API,
    /// any credential configured: then the configuration's tokens are the ones, and none is
    /// made).
    static func resolve(_ purpose: Purpose, file: String?, configured: String?, dataDirectory: String?) throws -> ServeToken {
        if let file { return ServeToken(purpose: purpose, token: try read(file, kept: false), origin: .file(file)) }
        if let configured { return ServeToken(purpose: purpose, token: configured, origin: .configuration) }
        guard let dataDirectory else { return ServeToken(purpose: purpose, token: madeUp(), origin: .madeUp) }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(purpose.fileName).path
        if FileManager.default.fileExists(atPath: path) {
            return ServeToken(purpose: purpose, token: try read(path, kept: true), origin: .dataDirectory(path: path, created: false))
        }
        let token = madeUp()
        try keep(token, at: path, in: dataDirectory)
        return ServeToken(purpose: purpose, token: token, origin: .dataDirectory(path: path, created: true))
    }

    /// A token file's one line, read through one descriptor: a regular file (a given file
    /// may be a link, as a mounted secret is; the kept one may not, and must be the
    /// user's, readable by them alone), at most ``maximumFileBytes``, printable, not empty.
    static func read(_ path: String, kept: Bool) throws -> String {
        let text = try readText(path, kept: kept).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ServeTokenError(message: "the token file '\(path)' is empty") }
        guard text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw ServeTokenError(message: "the token in '\(path)' must be one word of printable ASCII")
        }
        return text
    }

    /// A secrets file's lines (a given file, as ``read(_:kept:)`` reads it), each trimmed;
    /// at most ``maximumFileBytes``.
    static func readLines(_ path: String) throws -> [String] {
        try readText(path, kept: false).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func readText(_ path: String, kept: Bool) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (kept ? O_NOFOLLOW : 0))
        guard descriptor >= 0 else {
            throw ServeTokenError(message: "cannot read the token file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw ServeTokenError(message: "the token file '\(path)' is not a regular file")
        }
        if kept, status.st_uid != geteuid() || status.st_mode & 0o077 != 0 {
            throw ServeTokenError(message: "the token file '\(path)' must belong to this user and be readable by them alone "
                                  + "(chmod 600), or the token could be someone else's")
        }
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw ServeTokenError(message: "cannot read the token file '\(path)'") }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumFileBytes else {
            throw ServeTokenError(message: "the token file '\(path)' is larger than \(maximumFileBytes) bytes")
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Writes the token readable by its owner only from the start (created 0600, never a
    /// link followed), on disk before it is named, so a crash leaves no half file.
    private static func keep(_ token: String, at path: String, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = path + ".\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServeTokenError(message: "cannot write the token to '\(path)': \(String(cString: strerror(errno)))")
        }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ServeTokenError(message: "cannot write the token to '\(path)': \(reason)")
        }
    }

    static func madeUp() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }
}

/// A token that cannot be read or kept, said as a sentence.
struct ServeTokenError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
