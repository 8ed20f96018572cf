import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder a script or plugin may read files from, and nothing outside it: the rule
/// `require` follows, for every binding that takes a path (docs/security.md).
///
/// A path is relative, has no `..` component and no NUL; it is opened, and the file
/// actually opened (after every symlink) must be a regular file inside the folder and not
/// under `/proc`, `/sys` or `/dev`. The size is checked before a byte is read.
///
/// ```swift
/// let folder = try ConfinedFolder("/srv/bots/support")
/// let bytes = try folder.read("receipts/r1.jpg", maximumBytes: 2 << 20)
/// ```
public struct ConfinedFolder: Sendable, Equatable {
    /// Why a path was refused or a file could not be read.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The path breaks the rule (absolute, `..`, outside the folder, not a regular file).
            case outside
            /// No readable file there.
            case unreadable
            /// The file is larger than the caller takes.
            case tooLarge
        }

        public var kind: Kind
        public var message: String
        public var description: String { message }

        public init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    /// The folder, with every symlink resolved.
    public let root: String

    /// Places under which no file is ever read, whatever the folder.
    static let forbiddenRoots = ["/proc", "/sys", "/dev"]

    /// Confines reads to `path` (resolved: symlinks and `..` of the folder itself are the
    /// host's choice, not the script's).
    public init(_ path: String) throws {
        guard let resolved = realpath(path, nil) else {
            throw Refusal(kind: .unreadable, message: "the folder '\(path)' does not exist")
        }
        defer { free(resolved) }
        let root = String(cString: resolved)
        guard !Self.isForbidden(root) else {
            throw Refusal(kind: .outside, message: "files are never read under \(root)")
        }
        self.root = root
    }

    /// Checks `path` by its text alone: relative, no `..`, no NUL, not empty.
    public static func checkRelative(_ path: String) throws {
        guard !path.isEmpty else { throw Refusal(kind: .outside, message: "an empty path") }
        guard !path.utf8.contains(0) else { throw Refusal(kind: .outside, message: "a path with a NUL byte") }
        guard !path.hasPrefix("/"), !path.hasPrefix("~") else {
            throw Refusal(kind: .outside, message: "'\(path)' is absolute: paths are relative to the script's folder")
        }
        guard !path.split(separator: "/").contains("..") else {
            throw Refusal(kind: .outside, message: "'\(path)' has a '..': paths stay inside the script's folder")
        }
    }

    /// Reads the whole file at `path` (relative to the folder), refusing it without reading
    /// when it is larger than `maximumBytes`.
    public func read(_ path: String, maximumBytes: Int) throws -> Data {
        let descriptor = try open(path, maximumBytes: maximumBytes)
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Refusal(kind: .unreadable, message: "cannot read '\(path)'") }
            if count == 0 { return data }
            guard data.count + count <= maximumBytes else { throw tooLarge(path, maximumBytes) }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// Copies the file at `path` to `destination` (created, never overwritten), refusing it
    /// when it is larger than `maximumBytes`; streams, so the file is never held whole.
    public func copy(_ path: String, to destination: String, maximumBytes: Int) throws {
        let source = try open(path, maximumBytes: maximumBytes)
        defer { close(source) }
        let target = Glibc.open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard target >= 0 else { throw Refusal(kind: .unreadable, message: "cannot create a copy of '\(path)'") }
        var copied = 0
        var complete = false
        defer {
            close(target)
            if !complete { unlink(destination) }
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Refusal(kind: .unreadable, message: "cannot read '\(path)'") }
            if count == 0 { break }
            copied += count
            guard copied <= maximumBytes else { throw tooLarge(path, maximumBytes) }
            let written = chunk.withUnsafeBytes { FileDescriptorWriter.writeAll(target, $0.baseAddress!, count) }
            guard written else { throw Refusal(kind: .unreadable, message: "cannot write a copy of '\(path)'") }
        }
        complete = true
    }

    /// Writes `data` to the file at `path` (relative to the folder, in a folder that
    /// exists inside it), replacing it whole: the bytes go to a new file beside it that is
    /// then renamed into place, so a reader never sees half a file, and a symlink or a hard
    /// link at `path` is replaced, not written through. A new file has mode 0600 (what a
    /// script writes is the run's, not the world's); a regular file written over keeps
    /// its mode, so that a write never loosens it.
    public func write(_ data: Data, to path: String) throws {
        try Self.checkRelative(path)
        let components = path.split(separator: "/").map(String.init)
        guard let name = components.last, name != "." else {
            throw Refusal(kind: .outside, message: "'\(path)' names no file")
        }
        let folder = components.dropLast().joined(separator: "/")
        let parent = Glibc.open(folder.isEmpty ? root : (root == "/" ? "/" : root + "/") + folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw Refusal(kind: .unreadable, message: "cannot write '\(path)': no such folder") }
        defer { close(parent) }
        guard let opened = Self.path(of: parent), opened == root || opened.hasPrefix(root == "/" ? "/" : root + "/"),
            !Self.isForbidden(opened)
        else { throw Refusal(kind: .outside, message: "'\(path)' leads outside the folder") }
        var existing = stat()
        let replaced = fstatat(parent, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 && existing.st_mode & S_IFMT == S_IFREG
        let temporary = ".\(name).\(UUID().uuidString.prefix(8)).partial"
        let target = openat(parent, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard target >= 0 else { throw Refusal(kind: .unreadable, message: "cannot write '\(path)'") }
        let kept = !replaced || fchmod(target, existing.st_mode & 0o777) == 0
        let written = kept && data.withUnsafeBytes { bytes in
            bytes.isEmpty || FileDescriptorWriter.writeAll(target, bytes.baseAddress!, bytes.count)
        }
        let closed = close(target) == 0
        guard written, closed, renameat(parent, temporary, parent, name) == 0 else {
            unlinkat(parent, temporary, 0)
            throw Refusal(kind: .unreadable, message: "cannot write '\(path)'")
        }
    }

    /// Opens `path` for reading after checking it: the descriptor of a regular file inside
    /// the folder, no larger than `maximumBytes`.
    private func open(_ path: String, maximumBytes: Int) throws -> Int32 {
        try Self.checkRelative(path)
        let descriptor = Glibc.open(root == "/" ? "/" + path : root + "/" + path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw Refusal(kind: .unreadable, message: "cannot read '\(path)': no such file") }
        var keep = false
        defer { if !keep { close(descriptor) } }
        guard let opened = Self.path(of: descriptor),
            opened.hasPrefix(root == "/" ? "/" : root + "/"), !Self.isForbidden(opened)
        else {
            throw Refusal(kind: .outside, message: "'\(path)' leads outside the script's folder")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Refusal(kind: .unreadable, message: "cannot read '\(path)'") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(kind: .outside, message: "'\(path)' is not a regular file")
        }
        guard Int(status.st_size) <= maximumBytes else { throw tooLarge(path, maximumBytes) }
        keep = true
        return descriptor
    }

    private func tooLarge(_ path: String, _ maximumBytes: Int) -> Refusal {
        Refusal(kind: .tooLarge, message: "'\(path)' is larger than \(maximumBytes) bytes")
    }

    /// The path the kernel opened for `descriptor` (every symlink resolved).
    private static func path(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isForbidden(_ path: String) -> Bool {
        forbiddenRoots.contains { path == $0 || path.hasPrefix($0 + "/") }
    }
}

/// Writes whole buffers to a descriptor, resuming after short writes and interruptions.
enum FileDescriptorWriter {
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Bool {
        var offset = 0
        while offset < count {
            let written = write(descriptor, bytes + offset, count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
