import Foundation

/// A free loopback port that a test may stop listening on and listen on again, as a
/// platform restart does.
///
/// A port the kernel picks (port 0) comes from its ephemeral range, the same range every
/// outgoing connection's local port comes from: once the first server stops, any of the
/// suite's connections may be given that port and the second `bind` fails. These ports
/// lie below that range, so only a test that asked for one listens on it, and each call
/// in this process gets a port no earlier call got.
///
/// ```swift
/// let port = try restartablePort()
/// let server = try sandbox.serve(port: port)
/// await server.stop()
/// let restarted = try sandbox.serve(port: port)
/// ```
public func restartablePort() throws -> UInt16 {
    try RestartablePorts.shared.next()
}

private final class RestartablePorts: @unchecked Sendable {
    static let shared = RestartablePorts()

    private let lock = NSLock()
    private let range: Range<Int>
    private var offset: Int

    private init() {
        let ephemeralStart = Self.ephemeralRangeStart()
        range = max(1024, ephemeralStart - 8192)..<ephemeralStart
        offset = Int.random(in: 0..<range.count)   // runs side by side start apart
    }

    func next() throws -> UInt16 {
        try lock.withLock {
            for _ in 0..<range.count {
                let port = UInt16(range.lowerBound + offset)
                offset = (offset + 1) % range.count
                if let (socket, _) = try? bindLoopback(port: port) {
                    close(socket)
                    return port
                }
            }
            throw POSIXError(.EADDRNOTAVAIL)
        }
    }

    /// The first port of the kernel's ephemeral range (Linux's default when it cannot be read).
    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let first = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return (2048...65535).contains(first) ? first : 32768
    }
}
