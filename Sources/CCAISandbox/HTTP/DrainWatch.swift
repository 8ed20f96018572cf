import CHTTPShim
import Foundation
import Timekeeping

/// A wait for a connection's unsent bytes to fall, settled once: true by the server's
/// drain watch (`chttp_stream_when_drained`: the client read, or the stream ended), false
/// when the patience runs out on the sandbox's clock, whichever comes first. The watch
/// cancels the patience's timer as it settles, so a clock never holds a timer for a wait
/// already over.
final class DrainWatch: Sendable {
    private let drained = Settlement<Bool>()
    private let patience: ClockTimer

    private init(patience seconds: TimeInterval, on clock: any TimeSource) {
        let drained = self.drained
        patience = clock.schedule(after: seconds) { drained.settle(false) }
    }

    /// Waits on `stream`'s drain watch (at most `bytes` unsent, or the stream ended) for at
    /// most `patience` seconds of `clock`.
    static func wait(for stream: OpaquePointer, toAtMost bytes: Int, patience: TimeInterval, on clock: any TimeSource) async -> Bool {
        let watch = DrainWatch(patience: patience, on: clock)
        // The server calls the watch exactly once; it holds a reference until then.
        chttp_stream_when_drained(stream, bytes, { context in
            let watch = Unmanaged<DrainWatch>.fromOpaque(context!).takeRetainedValue()
            watch.drained.settle(true)
            watch.patience.cancel()
        }, Unmanaged.passRetained(watch).toOpaque())
        return await watch.drained.value()
    }

    /// Waits until `stream` has ended: the client left, or the server stopped.
    static func ended(_ stream: OpaquePointer) async {
        let ended = Settlement<Void>()
        chttp_stream_when_ended(stream, { context in
            Unmanaged<Settlement<Void>>.fromOpaque(context!).takeRetainedValue().settle(())
        }, Unmanaged.passRetained(ended).toOpaque())
        await ended.value()
    }
}
