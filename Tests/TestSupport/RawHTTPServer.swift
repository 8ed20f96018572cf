import Foundation

/// A loopback listener that answers each connection with whatever bytes the test writes:
/// a hostile platform's answers (an endless line, an unfinished event) that no real
/// server sends. Each connection runs `respond` on its own thread and is closed after it.
///
/// ```swift
/// let server = try RawHTTPServer { connection in
///     connection.readRequestHead()
///     connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: no end")
/// }
/// defer { server.stop() }
/// ```
public final class RawHTTPServer: @unchecked Sendable {
    /// One accepted connection.
    public struct Connection: Sendable {
        /// Which connection this is: 1 for the first.
        public let number: Int
        fileprivate let socket: Int32

        /// Reads up to the blank line that ends the request's head, and returns the head.
        @discardableResult
        public func readRequestHead() -> String {
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while head.count < 64 << 10, recv(socket, &byte, 1, 0) == 1 {
                head.append(byte)
                if head.suffix(4) == Array("\r\n\r\n".utf8) { break }
            }
            return String(decoding: head, as: UTF8.self)
        }

        /// Writes all of `bytes`; false once the client is gone.
        @discardableResult
        public func write(_ bytes: Data) -> Bool {
            bytes.withUnsafeBytes { buffer in
                var sent = 0
                while sent < buffer.count {
                    let count = send(socket, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                    guard count > 0 else { return false }
                    sent += count
                }
                return true
            }
        }

        @discardableResult
        public func write(_ text: String) -> Bool { write(Data(text.utf8)) }
    }

    public let port: UInt16
    private let listener: Int32

    public init(respond: @escaping @Sendable (Connection) -> Void) throws {
        let (listener, port) = try boundLoopbackSocket()
        guard listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        self.port = port
        Thread.detachNewThread {
            var number = 0
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                number += 1
                let connection = Connection(number: number, socket: client)
                Thread.detachNewThread {
                    respond(connection)
                    close(client)
                }
            }
        }
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting connections (those open end with their `respond`).
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// A TCP socket bound to a free port of 127.0.0.1, not listening yet: connections to it
/// are refused until it listens, and no other test's server can take the port meanwhile.
public func boundLoopbackSocket() throws -> (socket: Int32, port: UInt16) {
    try bindLoopback(port: 0)
}

/// Binds a new TCP socket to `port` of 127.0.0.1 (0: one the kernel picks) and says which.
func bindLoopback(port: UInt16) throws -> (socket: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(listener, generic, length) == 0 && getsockname(listener, generic, &length) == 0
        }
    }
    guard listener >= 0, bound else {
        close(listener)
        throw POSIXError(.EADDRNOTAVAIL)
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}
