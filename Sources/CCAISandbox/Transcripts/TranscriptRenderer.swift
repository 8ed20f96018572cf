import CCAIWire
import Foundation
import Timekeeping

/// Renders transcripts one at a time on a thread of its own (started when there is work,
/// gone when there is none): cairo and pango run synchronously for up to a second, and
/// they never hold a thread of Swift's cooperative pool, which serves every other request.
///
/// A request for a rendering already admitted (the same chat in the same version) waits
/// for it instead of rendering again. Otherwise at most ``maximumWaiting`` renderings wait
/// behind the one under way; past them a request is a 503 `unavailable` with
/// `Retry-After`. An end user has one rendering admitted at a time: a second one, of
/// another chat, is a 429 `limit_exceeded` with `Retry-After`, so one end user never
/// takes the places of others.
///
/// ```swift
/// let renderer = TranscriptRenderer()
/// let pdf = try await renderer.render(chatID: 7, version: version, endUserID: 3) {
///     let transcript = try await makeTranscript()      // in the request's task
///     return { try transcript.pdf() }                  // on the renderer's thread
/// }
/// ```
final class TranscriptRenderer: Sendable {
    /// Renderings that may wait behind the one under way.
    static let maximumWaiting = 4

    /// What draws a PDF on the renderer's thread.
    typealias Drawing = @Sendable () throws -> Data

    private struct Job {
        var version: TranscriptVersion
        var endUserID: Int
        var waiters: [CheckedContinuation<Data, any Error>]
    }

    private struct State {
        /// Admitted renderings by chat: being prepared, waiting or under way.
        var jobs: [Int: Job] = [:]
        /// Prepared renderings, oldest first.
        var ready: [(chatID: Int, drawing: Drawing)] = []
        var isDrawing = false
        var renderings = 0
    }

    private let state = LockedState(State())

    /// How many renderings have run.
    var renderings: Int { state.withLock { $0.renderings } }

    /// How many requests wait for a rendering (those that asked for it first included).
    var waiting: Int { state.withLock { $0.jobs.values.reduce(0) { $0 + $1.waiters.count } } }

    /// The chat's transcript in `version`: rendered by the drawing `prepare` returns
    /// (prepare runs in the caller's task, once the rendering is admitted), or by the
    /// rendering of the same version already admitted. Throws the 429 or 503 that refuses
    /// it, or what preparing or drawing threw.
    func render(chatID: Int, version: TranscriptVersion, endUserID: Int,
                prepare: @escaping @Sendable () async throws -> Drawing) async throws -> Data
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            let admission = state.withLock { state -> Result<Bool, HTTPError> in
                if var job = state.jobs[chatID], job.version == version {
                    job.waiters.append(continuation)
                    state.jobs[chatID] = job
                    return .success(false)
                }
                let retryAfter = Double(state.jobs.count)
                if let own = state.jobs.first(where: { $0.value.endUserID == endUserID }) {
                    return .failure(.limitExceeded("the transcript of chat \(own.key) is being rendered for you; "
                                                   + "an end user has one rendered at a time", retryAfter: retryAfter))
                }
                guard state.jobs.count <= Self.maximumWaiting else {
                    return .failure(HTTPError(code: .unavailable,
                                              message: "\(state.jobs.count) transcripts are being rendered or waiting, as many "
                                                  + "as the sandbox takes; try again shortly",
                                              headers: ["Retry-After": String(state.jobs.count)]))
                }
                state.jobs[chatID] = Job(version: version, endUserID: endUserID, waiters: [continuation])
                return .success(true)
            }
            switch admission {
            case .failure(let refusal):
                continuation.resume(throwing: refusal)
            case .success(false):
                break
            case .success(true):
                Task {
                    do {
                        enqueue(chatID, try await prepare())
                    } catch {
                        finish(chatID, .failure(error))
                    }
                }
            }
        }
    }

    private func enqueue(_ chatID: Int, _ drawing: @escaping Drawing) {
        let startsThread = state.withLock { state in
            state.ready.append((chatID, drawing))
            defer { state.isDrawing = true }
            return !state.isDrawing
        }
        guard startsThread else { return }
        if VirtualTime.current != nil {
            // In virtual time drawing is the simulation's work: on its thread, in its order.
            drawUntilIdle()
        } else {
            Thread { self.drawUntilIdle() }.start()
        }
    }

    /// The renderer's thread: draws what is ready, in order, until nothing is.
    private func drawUntilIdle() {
        while let (chatID, drawing) = state.withLock({ state -> (Int, Drawing)? in
            guard !state.ready.isEmpty else {
                state.isDrawing = false
                return nil
            }
            state.renderings += 1
            return state.ready.removeFirst()
        }) {
            finish(chatID, Result { try drawing() })
        }
    }

    private func finish(_ chatID: Int, _ result: Result<Data, any Error>) {
        let waiters = state.withLock { $0.jobs.removeValue(forKey: chatID)?.waiters ?? [] }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
