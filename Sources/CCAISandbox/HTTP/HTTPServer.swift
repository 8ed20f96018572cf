import CHTTPShim
import Foundation

/// An HTTP/1.1 server on libmicrohttpd. Requests are read on the daemon's threads and
/// answered by the router in Swift tasks; a request body over the limit is a 413.
///
/// ```swift
/// let server = try HTTPServer(router: router, address: "127.0.0.1", port: 0)
/// print(server.port)       // the ephemeral port chosen
/// await server.stop()
/// ```
public final class HTTPServer: @unchecked Sendable {
    public let address: String
    public let port: UInt16
    private let router: HTTPRouter
    private var server: OpaquePointer?
    private let lock = NSLock()
    private var isStopped = false

    /// Starts listening. `port` 0 picks a free port.
    public init(router: HTTPRouter, address: String = "127.0.0.1", port: UInt16 = 0,
                maximumBodyBytes: Int = 1 << 20, threads: Int = 2) throws {
        self.router = router
        self.address = address
        var error = [CChar](repeating: 0, count: 256)
        let box = BoxedServer()
        guard let started = chttp_start(address, port, maximumBodyBytes, UInt32(max(1, threads)),
                                        { context, exchange, method, path, headers, headersLength, query, queryLength, body, bodyLength in
                                            BoxedServer.dispatch(context, exchange, method, path, headers, headersLength,
                                                                 query, queryLength, body, bodyLength)
                                        }, Unmanaged.passUnretained(box).toOpaque(), &error, error.count)
        else {
            throw HTTPError.internalError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        self.port = chttp_port(started)
        box.server = self
        self.box = box
    }

    private var box: BoxedServer?

    /// The base URL (`http://127.0.0.1:PORT`).
    public var baseURL: String { "http://\(address):\(port)" }

    /// Stops accepting connections, lets requests in progress finish (up to `grace`
    /// seconds; later ones are answered 503), and shuts the daemon down. The waiting
    /// happens on a thread of its own, so the handlers still answering can run.
    public func stop(grace: TimeInterval = 5) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                self.stopNow(grace: grace)
                continuation.resume()
            }.start()
        }
    }

    /// The blocking shutdown.
    private func stopNow(grace: TimeInterval) {
        let server: OpaquePointer? = lock.withLock {
            guard !isStopped else { return nil }
            isStopped = true
            return self.server
        }
        guard let server else { return }
        chttp_stop(server, grace)
        lock.withLock { self.server = nil }
    }

    deinit { stopNow(grace: 0) }

    fileprivate func handle(_ exchange: OpaquePointer, _ request: HTTPRequest) {
        let router = self.router
        Task {
            let response = await router.respond(to: request)
            self.answer(exchange, response)
        }
    }

    /// Answers an exchange; after `stop` has finished, the exchange is gone: nothing is sent.
    private func answer(_ exchange: OpaquePointer, _ response: HTTPResponse) {
        lock.lock()
        defer { lock.unlock() }
        guard server != nil else { return }
        if let write = response.stream {
            let headerLines = response.headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            guard let stream = chttp_respond_stream(exchange, UInt32(response.status), headerLines) else { return }
            let events = HTTPEventStream(stream)
            Task {
                await write(events)
                events.close()
            }
            return
        }
        var headers = response.headers
        if !response.body.isEmpty, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        let headerLines = headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        response.body.withUnsafeBytes { body in
            chttp_respond(exchange, UInt32(response.status), headerLines,
                          body.bindMemory(to: CChar.self).baseAddress, body.count)
        }
    }
}

/// The context the C daemon holds: an unretained pointer to this box, which the server
/// keeps alive.
private final class BoxedServer {
    weak var server: HTTPServer?

    static func dispatch(_ context: UnsafeMutableRawPointer?, _ exchange: OpaquePointer?,
                         _ method: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
                         _ headers: UnsafePointer<CChar>?, _ headersLength: Int,
                         _ query: UnsafePointer<CChar>?, _ queryLength: Int,
                         _ body: UnsafePointer<CChar>?, _ bodyLength: Int) {
        let box = Unmanaged<BoxedServer>.fromOpaque(context!).takeUnretainedValue()
        var request = HTTPRequest(method: String(cString: method!), path: String(cString: path!))
        for (name, value) in pairs(headers, headersLength) { request.headers[name.lowercased()] = value }
        request.query = Dictionary(pairs(query, queryLength), uniquingKeysWith: { first, _ in first })
        if let body, bodyLength > 0 { request.body = Data(bytes: body, count: bodyLength) }
        guard let server = box.server else {
            chttp_respond(exchange, 503, nil, nil, 0)
            return
        }
        server.handle(exchange!, request)
    }

    /// Reads a "name\0value\0" sequence.
    private static func pairs(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> [(String, String)] {
        guard let pointer, length > 0 else { return [] }
        let strings = UnsafeBufferPointer(start: pointer, count: length).split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        var result: [(String, String)] = []
        var index = 0
        while index + 1 < strings.count {
            result.append((strings[index], strings[index + 1]))
            index += 2
        }
        return result
    }
}
