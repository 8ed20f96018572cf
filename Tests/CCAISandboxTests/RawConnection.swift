import CCAISandbox
import Foundation
import TestSupport

/// A client on a plain socket to 127.0.0.1, for what curl does not do: headers sent a line
/// at a time, a body left unfinished, a response read by hand, or never read at all.
///
/// ```swift
/// let connection = try RawConnection(port: server.port)
/// connection.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n")   // and never the blank line
/// #expect(try await connection.read(for: 5).closed)             // the server gave up on it
/// ```
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var isClosed = false

    /// A connection to `port`; with `receiveBuffer`, the kernel holds at most about that
    /// many bytes unread for it (a client that does not read then holds the server back).
    init(port: UInt16, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPError.internalError("no socket (errno \(errno))") }
        if var bytes = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw HTTPError.internalError("cannot connect to port \(port) (errno \(errno))")
        }
    }

    deinit { close() }

    /// Writes `text`; false once the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } > 0
    }

    /// What arrives within `seconds`, until `done` holds for the text so far or the server
    /// closes the connection (`closed`: it read end of file or a reset).
    func read(for seconds: TimeInterval, until done: (@Sendable (String) -> Bool)? = nil) async throws
        -> (text: String, closed: Bool)
    {
        try await offThePool { self.blockingRead(for: seconds, until: done) }
    }

    private func blockingRead(for seconds: TimeInterval, until done: ((String) -> Bool)?) -> (text: String, closed: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (String(decoding: received, as: UTF8.self), false) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return (String(decoding: received, as: UTF8.self), true) }
            received += chunk[0..<count]
            if let done, done(String(decoding: received, as: UTF8.self)) { return (String(decoding: received, as: UTF8.self), false) }
        }
    }

    func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            Glibc.close(descriptor)
        }
    }
}
