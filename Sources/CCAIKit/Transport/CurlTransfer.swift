import CCurlShim
import Foundation

/// One request in flight: its easy handle, what has arrived, and who is told its outcome.
/// Touched by the loop thread only, except `finish`, which is idempotent under a lock.
final class CurlTransfer {
    let easy: OpaquePointer
    let timeout: TimeInterval
    /// Where the request goes (`http://host:port`), for errors that say which server failed.
    private let server: String
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// `HOST:PORT:ADDRESS,...` of a request with pinned addresses (``HTTPClientRequest/pinnedAddresses``).
    private var pinnedHosts: UnsafeMutablePointer<curl_slist>?
    private var responseBody = Data()
    private var responseHeaders: [String: String] = [:]
    /// The body bytes kept (`maximumResponseBytes`) and the header bytes read
    /// (``HTTPClientRequest/maximumHeaderBytes``) at most; past either the transfer aborts.
    private let maximumResponseBytes: Int
    private var headerBytes = 0
    /// The limit the answer went past, if it did.
    private var exceededLimit: Int?
    private let lock = NSLock()
    /// Told the outcome once: a task's continuation, or an open stream's completion.
    private var completion: (@Sendable (Result<HTTPClientResponse, Error>) -> Void)?
    /// For streams: receives each chunk of a 2xx body (with the status) instead of
    /// buffering it; returning false aborts the transfer.
    private let onChunk: ((Int, Data) -> Bool)?
    /// The stream's back-pressure, if it has one.
    private let flow: StreamFlow?
    /// Starts the transfer again after the flow stopped it (set by the loop that runs it).
    var unpause: (@Sendable () -> Void)?

    /// libcurl's receive buffer of a transfer, held as long as its handle: its smallest,
    /// 1 KiB, a sixteenth of its default. An event stream's handle lives as long as its SDK
    /// instance, one per VU in a scenario, and a request's for as long as it is in flight,
    /// which is most of a VU's time under load; the platform's answers and events are mostly
    /// about that size, and a larger body is read in more pieces.
    static let receiveBufferBytes = 1 << 10

    init(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)? = nil) throws {
        guard let easy = curl_easy_init() else { throw TransportError.failed("cannot create a transfer") }
        self.easy = OpaquePointer(easy)
        self.timeout = request.timeout
        server = URLComponents(string: request.url).map { url in
            "\(url.scheme ?? "http")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
        } ?? request.url
        self.maximumResponseBytes = max(0, request.maximumResponseBytes)
        self.onChunk = onChunk
        self.flow = onChunk == nil ? nil : request.flow
        let handle = UnsafeMutableRawPointer(easy)
        ccurl_setopt_string(handle, CURLOPT_URL, request.url)
        ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        if request.timeout > 0 { ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, Int(request.timeout * 1000))) }
        ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS,
                          max(1, Int((request.timeout > 0 ? min(request.timeout, 10) : 10) * 1000)))
        ccurl_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        ccurl_setopt_long(handle, CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
        // An announced length over the limit is refused before any of the body is read.
        if onChunk == nil { ccurl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumResponseBytes)) }
        switch request.method {
        case "GET": ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD": ccurl_setopt_long(handle, CURLOPT_NOBODY, 1)
        case "POST": break
        default: ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            ccurl_setopt_long(handle, CURLOPT_POST, 1)
            ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { bytes in
                _ = ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS,
                                         UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
            if request.method != "POST" { ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method) }
        } else if request.method == "POST" {
            ccurl_setopt_long(handle, CURLOPT_POST, 1)
            ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            ccurl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
        }
        var headers = request.headers
        headers["Expect"] = headers["Expect"] ?? ""  // no 100-continue round trip
        for (name, value) in headers {
            requestHeaders = curl_slist_append(requestHeaders, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders)
        if !request.pinnedAddresses.isEmpty, let url = URLComponents(string: request.url), let host = url.host {
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            let addresses = request.pinnedAddresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")
            pinnedHosts = curl_slist_append(nil, "\(host):\(port):\(addresses)")
            ccurl_setopt_slist(handle, CURLOPT_RESOLVE, pinnedHosts)
            ccurl_setopt_string(handle, CURLOPT_NOPROXY, "*")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        ccurl_setopt_write(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            let chunk = UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self)
            if let onChunk = transfer.onChunk {
                var status = 0
                ccurl_getinfo_long(UnsafeMutableRawPointer(transfer.easy), CURLINFO_RESPONSE_CODE, &status)
                if (200..<300).contains(status) {
                    // The consumer is behind: libcurl keeps this chunk and stops reading.
                    if let flow = transfer.flow, let unpause = transfer.unpause, flow.pauseIfBehind(resume: unpause) {
                        return Int(CURL_WRITEFUNC_PAUSE)
                    }
                    return onChunk(status, Data(bytes: chunk, count: size * count)) ? size * count : 0
                }
            }
            guard transfer.responseBody.count <= transfer.maximumResponseBytes - size * count else {
                transfer.exceededLimit = transfer.maximumResponseBytes
                return 0
            }
            transfer.responseBody.append(chunk, count: size * count)
            return size * count
        }
        ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        ccurl_setopt_write(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            transfer.headerBytes += size * count
            guard transfer.headerBytes <= HTTPClientRequest.maximumHeaderBytes else {
                transfer.exceededLimit = HTTPClientRequest.maximumHeaderBytes
                return 0
            }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            if line.hasPrefix("HTTP/") { transfer.responseHeaders = [:] }
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                transfer.responseHeaders[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return size * count
        }
        ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
    }

    deinit {
        curl_easy_cleanup(UnsafeMutableRawPointer(easy))
        curl_slist_free_all(requestHeaders)
        curl_slist_free_all(pinnedHosts)
    }

    /// Tells `completion` the outcome, once, when the transfer ends.
    func whenDone(_ completion: @escaping @Sendable (Result<HTTPClientResponse, Error>) -> Void) {
        lock.withLock { self.completion = completion }
    }

    /// Tells the outcome once; later calls do nothing.
    func finish(_ result: Result<HTTPClientResponse, Error>) {
        let told = lock.withLock { () -> (@Sendable (Result<HTTPClientResponse, Error>) -> Void)? in
            defer { completion = nil }
            return completion
        }
        told?(result)
    }

    /// Finishes with what libcurl reported for the transfer.
    func complete(_ code: CURLcode) {
        if let limit = exceededLimit ?? (code == CURLE_FILESIZE_EXCEEDED ? maximumResponseBytes : nil) {
            finish(.failure(TransportError.tooLarge(limit: limit)))
            return
        }
        guard code == CURLE_OK else {
            finish(.failure(TransportError(code, timeout: timeout, server: server)))
            return
        }
        var status = 0
        ccurl_getinfo_long(UnsafeMutableRawPointer(easy), CURLINFO_RESPONSE_CODE, &status)
        finish(.success(HTTPClientResponse(status: status, headers: responseHeaders, body: responseBody)))
    }
}

extension TransportError {
    /// What libcurl's `code` means for a request to `server` (named when it cannot be reached).
    init(_ code: CURLcode, timeout: TimeInterval, server: String) {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout(timeout)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_GOT_NOTHING,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            self = .unavailable("\(message) at \(server)")
        default:
            self = .failed(message)
        }
    }
}
