import CCurlShim
import Foundation

/// One thread driving one libcurl multi handle for every request of a client: transfers
/// are added and cancelled from any thread, and finish on the loop thread.
final class CurlLoop: @unchecked Sendable {
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    private let multi: OpaquePointer
    private let lock = NSLock()
    private var incoming: [CurlTransfer] = []
    private var cancelled: [CurlTransfer] = []
    private var unpaused: [CurlTransfer] = []
    private var isStopping = false
    /// Loop-thread state: transfers in the multi handle, by easy handle.
    private var active: [OpaquePointer: CurlTransfer] = [:]
    private let finished = DispatchSemaphore(value: 0)

    init() {
        _ = CurlLoop.globalInit
        multi = OpaquePointer(curl_multi_init()!)
        let thread = Thread { [self] in run() }
        thread.name = "ccai-transport"
        thread.start()
    }

    func add(_ transfer: CurlTransfer) {
        lock.withLock { incoming.append(transfer) }
        curl_multi_wakeup(UnsafeMutableRawPointer(multi))
    }

    /// Reads a transfer that its stream's flow stopped again (on the loop thread, where
    /// libcurl allows it).
    func unpause(_ transfer: CurlTransfer) {
        lock.withLock { unpaused.append(transfer) }
        curl_multi_wakeup(UnsafeMutableRawPointer(multi))
    }

    func cancel(_ transfer: CurlTransfer) {
        lock.withLock { cancelled.append(transfer) }
        curl_multi_wakeup(UnsafeMutableRawPointer(multi))
    }

    /// Fails every transfer in flight and ends the thread.
    func stop() {
        lock.withLock { isStopping = true }
        curl_multi_wakeup(UnsafeMutableRawPointer(multi))
        finished.wait()
    }

    private func run() {
        let handle = UnsafeMutableRawPointer(multi)
        while true {
            let (adds, cancels, unpauses, stopping) = lock.withLock {
                defer {
                    incoming = []
                    cancelled = []
                    unpaused = []
                }
                return (incoming, cancelled, unpaused, isStopping)
            }
            for transfer in adds {
                curl_multi_add_handle(handle, UnsafeMutableRawPointer(transfer.easy))
                active[transfer.easy] = transfer
            }
            for transfer in cancels where active.removeValue(forKey: transfer.easy) != nil {
                curl_multi_remove_handle(handle, UnsafeMutableRawPointer(transfer.easy))
                transfer.finish(.failure(CancellationError()))
            }
            for transfer in unpauses where active[transfer.easy] != nil {
                curl_easy_pause(UnsafeMutableRawPointer(transfer.easy), CURLPAUSE_RECV_CONT)
            }
            if stopping { break }
            var running: Int32 = 0
            curl_multi_perform(handle, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(handle, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                if let transfer = active.removeValue(forKey: OpaquePointer(easy)) {
                    curl_multi_remove_handle(handle, easy)
                    transfer.complete(code)
                }
            }
            curl_multi_poll(handle, nil, 0, 1000, nil)
        }
        for transfer in active.values {
            curl_multi_remove_handle(handle, UnsafeMutableRawPointer(transfer.easy))
            transfer.finish(.failure(TransportError.unavailable("the client was shut down")))
        }
        active = [:]
        curl_multi_cleanup(handle)
        finished.signal()
    }
}
