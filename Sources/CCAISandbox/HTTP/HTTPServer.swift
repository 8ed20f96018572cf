import CHTTPShim
import Foundation

/// An HTTP/1.1 server on libmicrohttpd. Requests are admitted on their headers (route,
/// token, declared length: ``HTTPRouter/admit(method:path:authorization:contentLength:)``),
/// read on the daemon's threads within ``Limits``, and answered by the router in Swift
/// tasks. Connections are limited per address and must deliver each request by a
/// deadline; requests without a token get a small body budget of their own.
///
/// ```swift
/// let server = try HTTPServer(router: router, address: "127.0.0.1", port: 0)
/// print(server.port)       // the ephemeral port chosen
/// await server.stop()
/// ```
public final class HTTPServer: @unchecked Sendable {
    /// What the server holds at most, whatever its clients do (docs/security.md).
    public struct Limits: Sendable {
        /// Request bodies in memory, all connections together (64 MiB); past it they spool.
        public var memoryBytes = 64 << 20
        /// A body larger than this (64 KiB) is spooled to an unlinked temporary file.
        public var spoolAfterBytes = 64 << 10
        /// Spooled bodies, all connections together (1 GiB); past it requests get a 503.
        public var spoolBytes = 1 << 30
        /// Unsent bytes of one event stream (4 MiB); past it the connection is dropped and
        /// the client resumes with `Last-Event-ID`.
        public var streamBytes = 4 << 20
        /// Unsent bytes of all event streams together (128 MiB); the stream whose write
        /// would pass it is dropped, as at `streamBytes`.
        public var streamsBytes = 128 << 20
        /// Bodies of requests admitted without a token (signing in), all together (4 MiB):
        /// held in memory only, never spooled, and apart from the budgets above, so that
        /// clients without a token cannot use what authenticated ones need; past it a 503.
        public var anonymousBodyBytes = 4 << 20
        /// Of `anonymousBodyBytes`, what the bodies from one address may hold together (512
        /// KiB): a few addresses cannot take it all. Loopback is exempt unless `limitsLoopback`.
        /// 0: no limit per address.
        public var anonymousBodyBytesPerAddress = 512 << 10
        /// Seconds after its headers from which a body without a token still arriving is slow
        /// (1): when a body needs room that its address's or the whole budget lacks, the
        /// oldest slow one gives up its share (its connection is closed), so that bodies
        /// dripped a byte at a time do not keep out those that come at once.
        public var anonymousBodySlowSeconds: Double = 1
        /// Seconds a connection has to deliver a request's headers (and, without a token,
        /// its whole body) from when it opens or its previous answer ends (10): a deadline,
        /// not an idle timeout, so that dripping a byte at a time does not keep it; past it
        /// the connection is closed.
        public var requestSeconds: Double = 10
        /// Connections open at once, all clients together (nil: the process's descriptor
        /// limit less 256, at most 65,536).
        public var connections: Int?
        /// Connections open at once from one address (128); past it a new one is closed as
        /// it is accepted. 0: no limit.
        public var connectionsPerAddress = 128
        /// Whether loopback addresses (127.0.0.0/8) count against `connectionsPerAddress` and
        /// `anonymousBodyBytesPerAddress` (false): a load test runs its many SDK instances in
        /// one process on 127.0.0.1.
        public var limitsLoopback = false

        public init() {}
    }

    public let address: String
    public let port: UInt16
    private let router: HTTPRouter
    private var server: OpaquePointer?
    private let lock = NSLock()
    private var isStopped = false

    /// Starts listening. `port` 0 picks a free port.
    public init(router: HTTPRouter, address: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(),
                threads: Int = 2) throws {
        self.router = router
        self.address = address
        var error = [CChar](repeating: 0, count: 256)
        let box = BoxedServer(router: router)
        let cLimits = chttp_limits(memory_bytes: limits.memoryBytes, spool_after_bytes: limits.spoolAfterBytes,
                                   spool_bytes: limits.spoolBytes, stream_bytes: limits.streamBytes,
                                   streams_bytes: limits.streamsBytes, anonymous_bytes: limits.anonymousBodyBytes,
                                   anonymous_bytes_per_address: limits.anonymousBodyBytesPerAddress,
                                   anonymous_slow_seconds: limits.anonymousBodySlowSeconds.isFinite
                                       ? max(0, limits.anonymousBodySlowSeconds) : 0,
                                   request_seconds: limits.requestSeconds.isFinite ? max(0, limits.requestSeconds) : 0,
                                   connections: UInt32(clamping: limits.connections ?? 0),
                                   connections_per_address: UInt32(clamping: limits.connectionsPerAddress),
                                   limit_loopback: limits.limitsLoopback ? 1 : 0)
        guard let started = chttp_start(address, port, cLimits, UInt32(max(1, threads)),
                                        { context, method, path, authorization, contentLength, query, queryLength, admission in
                                            BoxedServer.admit(context, method, path, authorization, contentLength, query, queryLength,
                                                              admission)
                                        },
                                        { context, exchange, route, client, method, path, headers, headersLength, query, queryLength, body, bodyFile, bodyLength in
                                            BoxedServer.dispatch(context, exchange, route, client, method, path, headers,
                                                                 headersLength, query, queryLength, body, bodyFile, bodyLength)
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

    /// Bytes of request bodies without a token the server holds now (of
    /// ``Limits/anonymousBodyBytes``); 0 once stopped.
    public var anonymousBodyBytesHeld: Int {
        lock.withLock { server.map { chttp_anonymous_held($0) } ?? 0 }
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    public var baseURL: String { "http://\(address):\(port)" }

    /// Stops accepting connections (a new one is closed unanswered; the port is freed once
    /// the daemon is down), lets requests in progress finish (up to `grace` seconds; later
    /// ones on open connections are answered 503), and shuts the daemon down. The waiting
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

    fileprivate func handle(_ exchange: OpaquePointer, _ request: HTTPRequest, route: Int?) {
        let router = self.router
        Task {
            let response = await router.dispatch(request, route: route)
            self.answer(exchange, response)
        }
    }

    /// Answers an exchange; after `stop` has finished, the exchange is gone: nothing is sent.
    private func answer(_ exchange: OpaquePointer, _ response: HTTPResponse) {
        lock.lock()
        defer { lock.unlock() }
        guard server != nil else { return }
        if let write = response.stream {
            let pairs = Self.headerPairs(response.headers)
            guard let stream = pairs.withUnsafeBufferPointer({
                chttp_respond_stream(exchange, UInt32(response.status), $0.baseAddress, $0.count)
            }) else { return }
            let events = HTTPEventStream(stream)
            Task {
                await write(events)
                events.close()
            }
            return
        }
        var headers = response.headers
        if !response.body.isEmpty, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        let pairs = Self.headerPairs(headers)
        pairs.withUnsafeBufferPointer { pairs in
            response.body.withUnsafeBytes { body in
                chttp_respond(exchange, UInt32(response.status), pairs.baseAddress, pairs.count,
                              body.bindMemory(to: CChar.self).baseAddress, body.count)
            }
        }
    }

    /// Headers as the C side takes them: "name\0value\0" pairs (never split on newlines).
    fileprivate static func headerPairs(_ headers: [String: String]) -> [CChar] {
        var bytes: [CChar] = []
        for (name, value) in headers {
            bytes.append(contentsOf: name.utf8.map { CChar(bitPattern: $0) })
            bytes.append(0)
            bytes.append(contentsOf: value.utf8.map { CChar(bitPattern: $0) })
            bytes.append(0)
        }
        return bytes
    }
}

/// The context the C daemon holds: an unretained pointer to this box, which the server
/// keeps alive.
private final class BoxedServer {
    weak var server: HTTPServer?
    let router: HTTPRouter

    init(router: HTTPRouter) {
        self.router = router
    }

    static func admit(_ context: UnsafeMutableRawPointer?, _ method: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
                      _ authorization: UnsafePointer<CChar>?, _ contentLength: Int64,
                      _ query: UnsafePointer<CChar>?, _ queryLength: Int,
                      _ admission: UnsafeMutablePointer<chttp_admission>?) {
        guard let context, let method, let path, let admission else { return }
        let box = Unmanaged<BoxedServer>.fromOpaque(context).takeUnretainedValue()
        // The query is read only for a route that checks a pre-signed URL.
        let (decision, route) = box.router.admission(method: String(cString: method), path: String(cString: path),
                                                     authorization: authorization.map { String(cString: $0) },
                                                     contentLength: contentLength >= 0 ? contentLength : nil,
                                                     query: firstValues(pairs(query, queryLength)))
        admission.pointee.route = route.flatMap(Int32.init(exactly:)) ?? -1
        switch decision {
        case .read(let maximumBodyBytes, let authenticated, let takesFile):
            admission.pointee.status = 0
            admission.pointee.max_body_bytes = maximumBodyBytes
            admission.pointee.anonymous = authenticated ? 0 : 1
            admission.pointee.file_form = takesFile ? 1 : 0
        case .refuse(let error):
            admission.pointee.status = UInt32(error.status)
            var body = String(decoding: error.response.body, as: UTF8.self)
            if body.utf8.count >= MemoryLayout.size(ofValue: admission.pointee.body) {
                // Too long for the C buffer (a long path in the message): the code, and a message that fits.
                var short = error
                short.message = String(error.message.prefix(200)) + "..."
                body = String(decoding: short.response.body, as: UTF8.self)
            }
            copy(body, into: &admission.pointee.body)
            let pairs = HTTPServer.headerPairs(error.headers)
            if pairs.count < MemoryLayout.size(ofValue: admission.pointee.headers) {
                withUnsafeMutableBytes(of: &admission.pointee.headers) { raw in
                    pairs.withUnsafeBytes { raw.copyMemory(from: $0) }
                }
                admission.pointee.headers_len = pairs.count
            }
        }
    }

    /// Copies `text` into a fixed C buffer, cut at a character boundary, NUL-terminated.
    private static func copy<Buffer>(_ text: String, into buffer: inout Buffer) {
        withUnsafeMutableBytes(of: &buffer) { raw in
            var bytes = Array(text.utf8)
            if bytes.count >= raw.count {
                bytes = Array(bytes.prefix(raw.count - 1))
                while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
                if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
            }
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }

    static func dispatch(_ context: UnsafeMutableRawPointer?, _ exchange: OpaquePointer?, _ route: Int32,
                         _ client: UnsafePointer<CChar>?,
                         _ method: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
                         _ headers: UnsafePointer<CChar>?, _ headersLength: Int,
                         _ query: UnsafePointer<CChar>?, _ queryLength: Int,
                         _ body: UnsafePointer<CChar>?, _ bodyFile: Int32, _ bodyLength: Int) {
        let box = Unmanaged<BoxedServer>.fromOpaque(context!).takeUnretainedValue()
        var request = HTTPRequest(method: String(cString: method!), path: String(cString: path!))
        request.clientAddress = client.map { String(cString: $0) }
        for (name, value) in pairs(headers, headersLength) { request.headers[name.lowercased()] = value }
        for (name, value) in pairs(query, queryLength) {
            if request.query[name] == nil { request.query[name] = value } else { request.repeatedQueryNames.insert(name) }
        }
        if bodyFile >= 0 {
            guard let spooled = readSpooled(bodyFile, bodyLength) else {
                chttp_respond(exchange, 500, nil, 0, nil, 0)
                return
            }
            request.body = spooled
        } else if let body, bodyLength > 0 {
            request.body = Data(bytes: body, count: bodyLength)
        }
        guard let server = box.server else {
            chttp_respond(exchange, 503, nil, 0, nil, 0)
            return
        }
        server.handle(exchange!, request, route: route >= 0 ? Int(route) : nil)
    }

    /// The body the C side spooled to a file.
    private static func readSpooled(_ descriptor: Int32, _ length: Int) -> Data? {
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < length {
                let count = pread(descriptor, buffer.baseAddress! + offset, length - offset, off_t(offset))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    /// Each name with its first value, as ``HTTPRequest/query`` keeps them.
    private static func firstValues(_ pairs: [(String, String)]) -> [String: String] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// Reads a "name\0value\0" sequence.
    private static func pairs(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> [(String, String)] {
        guard let pointer, length > 0 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        var strings: [String] = []
        var start = 0
        for index in 0..<length where bytes[index] == 0 {
            strings.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            start = index + 1
        }
        var result: [(String, String)] = []
        var index = 0
        while index + 1 < strings.count {
            result.append((strings[index], strings[index + 1]))
            index += 2
        }
        return result
    }
}
