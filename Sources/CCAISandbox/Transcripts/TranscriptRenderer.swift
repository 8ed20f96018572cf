import CCAIWire
import Foundation
import Timekeeping

/// Renders transcripts one at a time on a thread of its own (started when there is work,
/// gone when there is none): cairo and pango run synchronously for up to a second, and
/// they never hold a thread of Swift's cooperative pool, which serves every other request.
///
/// A request for a rendering already admitted (the same chat in the same version) waits
/// for it instead of rendering again. Otherwise at most ``maximumWaiting`` renderings wait
/// behind the one under way. An end user has one rendering admitted at a time: a second
/// one, of another chat, is a 429 `limit_exceeded` with `Retry-After`. When the queue is
/// full, an end user who has had fewer transcripts rendered (since the renderer was last
/// idle) takes the place of a waiting rendering of the end user who has had the most,
/// which is refused with a 503; otherwise the newcomer gets the 503 `unavailable` with
/// `Retry-After`. So a few end users asking in a loop never keep the others out. Of the
/// renderings waiting, the smallest (fewest messages) is drawn first, unless one has been
/// passed over ``maximumWaiting`` times.
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
        var id: Int
        var version: TranscriptVersion
        var endUserID: Int
        var waiters: [CheckedContinuation<Data, any Error>]
        /// Its drawing, once prepared; nil while it is being prepared.
        var drawing: Drawing?
        var isDrawing = false
        /// How often another was drawn before it, once it was ready.
        var passedOver = 0
        /// The transcript's messages: smaller ones are drawn first.
        var size: Int { version.messages.count }
    }

    private struct State {
        /// Admitted renderings by chat: being prepared, waiting or under way.
        var jobs: [Int: Job] = [:]
        var isDrawing = false
        var renderings = 0
        var lastJobID = 0
        /// Renderings admitted per end user since the renderer was last idle.
        var served: [Int: Int] = [:]
    }

    private let state = LockedState(State())

    /// How many renderings have run.
    var renderings: Int { state.withLock { $0.renderings } }

    /// How many renderings are prepared and wait for their turn to be drawn.
    var prepared: Int { state.withLock { $0.jobs.values.filter { $0.drawing != nil && !$0.isDrawing }.count } }

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
            var evicted: [CheckedContinuation<Data, any Error>] = []
            let admission = state.withLock { state -> Result<Int?, HTTPError> in
                if var job = state.jobs[chatID], job.version == version {
                    job.waiters.append(continuation)
                    state.jobs[chatID] = job
                    return .success(nil)
                }
                if let refusal = Self.refusal(of: endUserID, in: &state, evicting: &evicted) { return .failure(refusal) }
                state.lastJobID += 1
                state.served[endUserID, default: 0] += 1
                state.jobs[chatID] = Job(id: state.lastJobID, version: version, endUserID: endUserID, waiters: [continuation])
                return .success(state.lastJobID)
            }
            let makingRoom = HTTPError(code: .unavailable, message: "this transcript gave its place to an end user who has had "
                                           + "fewer rendered lately; try again shortly", headers: ["Retry-After": "1"])
            for waiter in evicted { waiter.resume(throwing: makingRoom) }
            switch admission {
            case .failure(let refusal):
                continuation.resume(throwing: refusal)
            case .success(nil):
                break
            case .success(let jobID?):
                Task {
                    do {
                        ready(chatID, jobID, try await prepare())
                    } catch {
                        finish(chatID, jobID, .failure(error))
                    }
                }
            }
        }
    }

    /// Why `endUserID`'s new rendering is refused, if it is: another of theirs admitted
    /// (429), or a full queue with no waiting rendering of an end user served more (503).
    /// A rendering it takes the place of is removed, its waiters put in `evicted`.
    private static func refusal(of endUserID: Int, in state: inout State,
                                evicting evicted: inout [CheckedContinuation<Data, any Error>]) -> HTTPError? {
        let retryAfter = Double(state.jobs.count)
        if let own = state.jobs.first(where: { $0.value.endUserID == endUserID }) {
            return .limitExceeded("the transcript of chat \(own.key) is being rendered for you; "
                                  + "an end user has one rendered at a time", retryAfter: retryAfter)
        }
        guard state.jobs.count > maximumWaiting else { return nil }
        let served = state.served
        let mine = served[endUserID, default: 0]
        let candidate = state.jobs.filter { !$0.value.isDrawing }
            .max { (served[$0.value.endUserID, default: 0], $0.value.size, $0.value.id)
                < (served[$1.value.endUserID, default: 0], $1.value.size, $1.value.id) }
        if let candidate, served[candidate.value.endUserID, default: 0] > mine {
            evicted = state.jobs.removeValue(forKey: candidate.key)?.waiters ?? []
            return nil
        }
        return HTTPError(code: .unavailable,
                         message: "\(state.jobs.count) transcripts are being rendered or waiting, as many "
                             + "as the sandbox takes; try again shortly",
                         headers: ["Retry-After": String(state.jobs.count)])
    }

    /// The job's drawing is prepared: it waits its turn (unless the job gave its place up).
    private func ready(_ chatID: Int, _ jobID: Int, _ drawing: @escaping Drawing) {
        let startsThread = state.withLock { state -> Bool in
            guard var job = state.jobs[chatID], job.id == jobID else { return false }
            job.drawing = drawing
            state.jobs[chatID] = job
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

    /// The next job to draw: one passed over too often, else the smallest, then the oldest.
    private static func next(in state: inout State) -> (chatID: Int, jobID: Int, drawing: Drawing)? {
        let ready = state.jobs.filter { $0.value.drawing != nil && !$0.value.isDrawing }
        guard let chosen = ready.min(by: { first, second in
            let (a, b) = (first.value, second.value)
            return (a.passedOver < maximumWaiting ? 1 : 0, a.size, a.id) < (b.passedOver < maximumWaiting ? 1 : 0, b.size, b.id)
        }), let drawing = chosen.value.drawing else { return nil }
        for chatID in ready.keys where chatID != chosen.key { state.jobs[chatID]?.passedOver += 1 }
        state.jobs[chosen.key]?.isDrawing = true
        return (chosen.key, chosen.value.id, drawing)
    }

    /// The renderer's thread: draws what is ready, in turn, until nothing is.
    private func drawUntilIdle() {
        while let (chatID, jobID, drawing) = state.withLock({ state -> (Int, Int, Drawing)? in
            guard let next = Self.next(in: &state) else {
                state.isDrawing = false
                return nil
            }
            state.renderings += 1
            return next
        }) {
            finish(chatID, jobID, Result { try drawing() })
        }
    }

    private func finish(_ chatID: Int, _ jobID: Int, _ result: Result<Data, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Data, any Error>] in
            guard state.jobs[chatID]?.id == jobID else { return [] }
            let waiters = state.jobs.removeValue(forKey: chatID)?.waiters ?? []
            if state.jobs.isEmpty { state.served = [:] }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
