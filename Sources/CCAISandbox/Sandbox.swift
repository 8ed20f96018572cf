import CCAIWire
import Foundation
import Synchronization
import Timekeeping

/// The platform emulator: the company of a configuration behind the wire API, its state
/// in SQLite (in `dataDirectory`, or in memory), its time from `clock`.
///
/// ```swift
/// let sandbox = try Sandbox(configuration: .builtIn, dataDirectory: nil)
/// let server = try sandbox.serve(address: "127.0.0.1", port: 0)
/// print(server.baseURL)
/// ```
public final class Sandbox: Sendable {
    public let configuration: SandboxConfiguration
    let store: SandboxStore
    /// How many chats the store had created when ``endIdleChats()`` last found none in
    /// progress (nil: not since it started).
    private let quietAfterCreating = LockedState<Int?>(nil)

    /// Whether the last look found no chat in progress, and none was created since.
    private var hasNoChatInProgress: Bool {
        quietAfterCreating.withLock { $0 } == store.chatsCreated.withLock { $0 }
    }
    /// The time of tokens and JWTs.
    let clock: any TimeSource
    /// When this sandbox started (by `clock`): a chat resumed from an earlier run counts
    /// as active from then, not idle through the outage.
    let startedAt: Date
    /// The time of business hours: `clock`, or the configuration's `clock_start` onwards.
    /// What scripts and plugins of the same run read as the time, so that "after 18:00" is
    /// after 18:00 for all of them.
    public let businessClock: any TimeSource
    /// Requests per end user (`limits.requests_per_second`, `limits.burst`).
    let rateLimiter: RateLimiter<Int>
    /// Hands chats and messages to the agents.
    let agentDesk: AgentDesk
    /// Where the sandbox reports what goes wrong outside any request (a failing agent
    /// script, its `print`s).
    let log: @Sendable (String) -> Void
    /// The periodic chores (pruning, ending idle chats); they stop with the sandbox.
    private let chores = Mutex<[ClockTimer]>([])

    // The domain types (Domain/) the routes, the agents and the chores act through: each
    // holds the parts of the store and the configuration it needs, and nothing reaches
    // past them to the store but the token check and the pruning of old data.

    /// Where every event for end users is recorded and announced.
    let publisher: EventPublisher
    /// The transitions of chats, for routes, agents and the chores.
    let lifecycle: ChatLifecycle
    /// Every message posted, stored then published.
    let conversation: Conversation
    let callers: CallerResolver
    let feed: EventFeed
    let streams: EventStreams
    let endUsers: EndUsers
    let queues: Queues
    let chatStarts: ChatStarts
    let chats: Chats
    let calls: Calls
    let scheduledCalls: ScheduledCalls
    let pushes: Pushes
    let smartActions: SmartActions
    let forms: Forms
    let screenShares: ScreenShares
    let files: ChatFiles
    let postSessions: PostSessions
    let transcripts: Transcripts
    /// The published metadata of ended sessions: `DATA/exports/` and the admin routes.
    let sessionMetadata: SessionMetadataExports
    /// Delivers the events of Apps API chats to the configuration's `webhooks.url`,
    /// signed; nil when the configuration has no `webhooks` (docs/webhooks.md).
    public let webhooks: WebhookDispatcher?
    /// The Apps API's door (credentials, the company's rate) and its chat platform flow.
    let appsGate: AppsGate
    let appsChats: AppsChats
    /// The photos and videos of the Apps API's chats, and their pre-signed URLs.
    let appsMedia: AppsChatMedia
    /// What `GET /admin/metrics` shows; nil when the sandbox was made without metrics.
    let metrics: SandboxMetrics?
    /// Who is signed in at the console; nil when the sandbox serves no console.
    let consoleSessions: ConsoleSessions?

    /// A sandbox whose time comes from `clock` (the real time by default). A configuration
    /// with `clock_start` moves business hours to that moment; tokens keep `clock`.
    /// Agent scripts are read and compiled now: the configuration's problems and every
    /// script that cannot be are one ``ConfigurationError``. With
    /// `chat_timeout_seconds`, idle chats are ended every 5 seconds (of `clock`) while the
    /// sandbox lives; with a queue that takes scheduled calls, the calls due are placed as
    /// often. Pushes (a scheduled call's callback, an agent's message to an end user with no
    /// event stream open) are recorded, and handed to `pushSink` when there is one. A
    /// configuration with `webhooks` needs `webhookTransport` (CCAIBridge's
    /// `CurlWebhookTransport`): the sandbox has no HTTP client of its own. With
    /// `collectsMetrics`, it counts its requests and times its store for `GET
    /// /admin/metrics` (docs/observability.md); without, that route answers 404. With
    /// `servesConsole`, its router serves the console at `/console` (docs/console.md).
    public init(configuration: SandboxConfiguration = .builtIn, dataDirectory: String? = nil,
                clock: any TimeSource = SystemClock(), pushSink: (any PushSink)? = nil,
                webhookTransport: (any WebhookTransport)? = nil, collectsMetrics: Bool = false, servesConsole: Bool = false,
                log: @escaping @Sendable (String) -> Void = Sandbox.standardError) throws {
        let scripts = AgentScripts(configuration: configuration)
        let problems = configuration.problems() + scripts.problems
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        webhooks = try configuration.webhooks.map { webhooks in
            guard let webhookTransport else {
                throw ConfigurationError(message: "webhooks: this program gives the sandbox no HTTP client to deliver them with "
                                         + "(Sandbox(webhookTransport:))")
            }
            return WebhookDispatcher(configuration: webhooks, transport: webhookTransport, clock: clock, log: log)
        }
        self.log = log
        self.configuration = configuration
        let limits = configuration.limits ?? LimitsConfiguration()
        rateLimiter = RateLimiter(rate: limits.effectiveRequestsPerSecond, burst: limits.effectiveBurst, clock: clock)
        let metrics = collectsMetrics ? SandboxMetrics(startTime: Date()) : nil
        self.metrics = metrics
        consoleSessions = servesConsole ? ConsoleSessions() : nil
        let store = try SandboxStore(directory: dataDirectory, companyKey: configuration.company.key, now: clock.now(),
                                     onStatement: metrics.map { $0.statementTook })
        self.store = store
        self.clock = clock
        startedAt = clock.now()
        if let start = configuration.clockStart.flatMap({ ISO8601DateFormatter().date(from: $0) }) {
            businessClock = OffsetClock(base: clock, start: start)
        } else {
            businessClock = clock
        }
        let hub = EventHub(clock: clock)
        let renderer = AppsChatRenderer(configuration: configuration, store: store)
        let webhookTap = webhooks.map { AppsWebhookTap(webhooks: $0, store: store, renderer: renderer, log: log) }
        let publisher = EventPublisher(store: store, hub: hub, clock: clock, webhookTap: webhookTap)
        let changes = SessionChanges()
        let lifecycle = ChatLifecycle(store: store, publisher: publisher, clock: clock, changes: changes)
        let streams = EventStreams(limit: limits.effectiveEventStreamsPerEndUser, hub: hub)
        self.streams = streams
        let pushes = Pushes(store: store, sink: pushSink, streams: streams, clock: clock, log: log)
        self.pushes = pushes
        let conversation = Conversation(store: store, publisher: publisher, clock: clock, changes: changes, pushes: pushes)
        let handleTimes = HandleTimes()
        let estimator = WaitEstimator(configuration: configuration, handleTimes: handleTimes, businessClock: businessClock, clock: clock)
        let queues = Queues(configuration: configuration, store: store, businessClock: businessClock, estimator: estimator)
        let quotas = Quotas(store: store, limits: limits, clock: clock)
        let chats = Chats(store: store, lifecycle: lifecycle, conversation: conversation, queues: queues, clock: clock)
        let callLifecycle = CallLifecycle(store: store, publisher: publisher, clock: clock, changes: changes,
                                          estimator: estimator,
                                          deflections: WaitDeflections(configuration: configuration),
                                          postSession: { configuration.postSessionSettings(forMenu: $0) })
        let calls = Calls(configuration: configuration, store: store, lifecycle: callLifecycle, queues: queues, quotas: quotas,
                          clock: clock)
        self.calls = calls
        scheduledCalls = ScheduledCalls(configuration: configuration, store: store, lifecycle: callLifecycle, calls: calls,
                                        queues: queues, quotas: quotas, pushes: pushes, clock: clock, businessClock: businessClock)
        let smartActions = SmartActions(store: store, publisher: publisher, clock: clock)
        let forms = Forms(configuration: configuration, store: store, conversation: conversation, clock: clock)
        let screenShares = ScreenShares(store: store, publisher: publisher, conversation: conversation, quotas: quotas, clock: clock,
                                        log: log)
        let files = ChatFiles(store: store, conversation: conversation, smartActions: smartActions, quotas: quotas, clock: clock)
        (self.publisher, self.lifecycle, self.conversation, self.queues, self.chats) = (publisher, lifecycle, conversation, queues, chats)
        (self.smartActions, self.forms, self.screenShares, self.files) = (smartActions, forms, screenShares, files)
        callers = CallerResolver(store: store, quotas: quotas, clock: clock)
        feed = EventFeed(store: store, hub: hub)
        endUsers = EndUsers(configuration: configuration, store: store, streams: streams, signIns: SignInLimits(limits, clock: clock),
                            clock: clock)
        chatStarts = ChatStarts(configuration: configuration, store: store, lifecycle: lifecycle, queues: queues, quotas: quotas,
                                clock: clock)
        let sessionMetadata = SessionMetadataExports(configuration: configuration, store: store, dataDirectory: dataDirectory, log: log)
        self.sessionMetadata = sessionMetadata
        changes.subscribe(sessionMetadata)
        postSessions = PostSessions(configuration: configuration, store: store, lifecycle: lifecycle, callLifecycle: callLifecycle,
                                    publisher: publisher, exports: sessionMetadata, clock: clock)
        transcripts = Transcripts(configuration: configuration, store: store, conversation: conversation,
                                  renderer: TranscriptRenderer(), cache: TranscriptCache())
        let environment = AgentEnvironment(
            configuration: configuration, queues: queues, chats: chats, lifecycle: lifecycle, calls: calls, conversation: conversation,
            publisher: publisher, smartActions: smartActions, forms: forms, screenShares: screenShares, files: files, clock: clock,
            log: log)
        agentDesk = AgentDesk(environment: environment, scripts: scripts.agents, virtualScripts: scripts.virtualAgents)
        changes.subscribe(agentDesk)
        appsGate = AppsGate(configuration: configuration, limits: limits, clock: clock)
        appsChats = AppsChats(configuration: configuration, store: store, starts: chatStarts, chats: chats, lifecycle: lifecycle,
                              desk: agentDesk, queues: queues, renderer: renderer, clock: clock)
        appsMedia = AppsChatMedia(appsChats: appsChats, store: store, files: files, uploads: AppsUploads(),
                                  signature: URLSignature(key: URLSignature.randomKey()), clock: clock)
        startChores()
    }

    /// What the sandbox does on its own while it lives, on its clock: pruning old data every
    /// minute; ending idle chats every 5 seconds (every `chat_timeout_seconds` while no chat
    /// is in progress) and placing the scheduled calls due every 5 seconds, when the
    /// configuration has them; waking the agents whose shift starts.
    private func startChores() {
        var chores = [clock.repeating(every: 60) { [weak self] in
            guard let self else { return }
            do { try await self.pruneOldData() } catch { self.log("sandbox: pruning old events and files failed: \(error)") }
        }]
        if let timeout = configuration.chatTimeoutSeconds {
            // With no chat in progress, none can time out sooner than `timeout` after the next
            // is created: the chore waits that long (idle simulated days cost a few runs).
            chores.append(clock.repeating(after: 5) { [weak self] in
                guard let self else { return 5 }
                do { _ = try await self.endIdleChats() } catch { self.log("sandbox: ending idle chats failed: \(error)") }
                return self.hasNoChatInProgress ? max(5, timeout) : 5
            })
        }
        if configuration.allMenus.contains(where: { $0.channels?.voiceCall?.schedule == true }) {
            // Every 5 seconds while a call is booked or ringing; an hour otherwise, unless a
            // booking wakes it first.
            let placing = LockedState<ClockTimer?>(nil)
            let clock = self.clock
            let start: @Sendable (Double) -> Void = { [weak self] first in
                guard self != nil else { return }
                let timer = clock.repeating(after: first) { [weak self] in
                    guard let self else { return 5 }
                    do { _ = try await self.placeScheduledCallsDue() } catch { self.log("sandbox: placing scheduled calls failed: \(error)") }
                    return (try? await self.store.hasCallsAwaitingTheClock()) == false ? 3_600 : 5
                }
                placing.withLock { $0 = timer }
            }
            start(5)
            store.bookings.onWake { start(5) }
            chores.append(ClockTimer { [store] in
                store.bookings.onWake {}
                placing.withLock { $0?.cancel() }
            })
        }
        let desk = agentDesk
        chores += desk.roster.watch { [weak desk] name in await desk?.shiftStarted(name) }
        self.chores.withLock { $0 = chores }
    }

    /// Writes a line to standard error (the default log), control characters escaped; the
    /// lines of a traceback stay lines, indented, so no text can start a line of its own.
    public static let standardError: @Sendable (String) -> Void = { line in
        let text = TerminalText.escaped(line, keepingNewlines: true).replacingOccurrences(of: "\n", with: "\n\t")
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Every endpoint of the wire API (docs/openapi.yaml); requests without a valid token
    /// are refused on their headers.
    public var router: HTTPRouter {
        var router = HTTPRouter()
        let tokens = store.tokens
        let clock = self.clock, limiter = self.rateLimiter
        router.checkToken = { token in
            let now = clock.now()
            guard let endUserID = tokens.endUser(token: token, now: now) else {
                return .unauthenticated("the auth token is unknown, revoked or expired; authenticate again")
            }
            guard let wait = limiter.retryAfter(endUserID) else { return nil }
            return .limitExceeded("too many requests: at most \(limiter.rate.limitText) a second (limits.requests_per_second) "
                                  + "after a burst of \(limiter.burst.limitText) (limits.burst)", retryAfter: wait)
        }
        let desk = agentDesk
        HealthRoutes(room: StorageRoom(directory: store.directory)).register(in: &router)
        AuthRoutes(callers: callers, endUsers: endUsers).register(in: &router)
        CompanyRoutes(callers: callers, endUsers: endUsers).register(in: &router)
        QueueMenuRoutes(callers: callers, queues: queues).register(in: &router)
        EventRoutes(callers: callers, feed: feed, streams: streams).register(in: &router)
        ChatRoutes(callers: callers, starts: chatStarts, chats: chats, conversation: conversation, lifecycle: lifecycle,
                   smartActions: smartActions, desk: desk).register(in: &router)
        CallRoutes(callers: callers, calls: calls, scheduled: scheduledCalls, desk: desk).register(in: &router)
        PushRoutes(callers: callers, pushes: pushes).register(in: &router)
        SmartActionRoutes(callers: callers, calls: calls, smartActions: smartActions).register(in: &router)
        MediaRoutes(callers: callers, files: files).register(in: &router)
        FormRoutes(callers: callers, forms: forms).register(in: &router)
        ScreenShareRoutes(callers: callers, screenShares: screenShares).register(in: &router)
        PostSessionRoutes(callers: callers, calls: calls, postSessions: postSessions, desk: desk).register(in: &router)
        TranscriptRoutes(callers: callers, transcripts: transcripts).register(in: &router)
        SessionMetadataRoutes(exports: sessionMetadata).register(in: &router)
        WebhookRoutes(webhooks: webhooks).register(in: &router)
        AppsRoutes(configuration: configuration, appsChats: appsChats, queues: queues, desk: desk).register(in: &router)
        AppsChatRoutes(appsChats: appsChats).register(in: &router)
        AppsMediaRoutes(media: appsMedia).register(in: &router)
        MetricsRoutes(metrics: metrics, configuration: configuration, store: store, desk: desk, streams: streams).register(in: &router)
        if let consoleSessions {
            let state = ConsoleStateReader(configuration: configuration, chats: chats, calls: calls, conversation: conversation,
                                           smartActions: smartActions, forms: forms, desk: desk, postSessions: postSessions, clock: clock)
            ConsoleRoutes(configuration: configuration, sessions: consoleSessions, state: state, desk: desk, files: files)
                .register(in: &router)
        }
        router.adminToken = configuration.adminToken
        let gate = appsGate
        router.checkAppsCredentials = { gate.refusal($0) }
        router.tally = metrics?.tally(for: router)
        return router
    }

    /// Starts an HTTP server for the sandbox, holding at most `limits`.
    public func serve(address: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServer.Limits = HTTPServer.Limits()) throws
        -> HTTPServer
    {
        try HTTPServer(router: router, address: address, port: port, limits: limits)
    }

    /// Records an event for an end user (written before this returns) and wakes their
    /// event streams. Returns the event's id.
    @discardableResult
    public func publish(endUserID: Int, event: PlatformEventName, data: JSONValue) async throws -> Int64 {
        try await publisher.publish(endUserID: endUserID, event: event, jsonText: try data.jsonText())
    }

    /// Ends the chats whose end user has been silent for `chat_timeout_seconds` (the
    /// sandbox also does it every 5 seconds by itself), counting from this sandbox's start
    /// at the earliest, so an outage is not silence; returns them.
    ///
    /// ```swift
    /// let ended = try await sandbox.endIdleChats()   // ended_by == "timeout"
    /// ```
    @discardableResult
    public func endIdleChats() async throws -> [ChatResponse] {
        guard let timeout = configuration.chatTimeoutSeconds else { return [] }
        let now = clock.now()
        // Every chat is younger than this process's run until it has lasted `timeout`
        // (chats resumed from an earlier run count from the start).
        guard now.timeIntervalSince(startedAt) >= timeout else { return [] }
        // With no chat in progress and none created since, there is nothing to look at: a
        // simulated month of idle time costs no query every 5 seconds.
        let created = store.chatsCreated.withLock { $0 }
        if hasNoChatInProgress { return [] }
        var ended: [ChatResponse] = []
        for idle in try await chats.idle(since: now.addingTimeInterval(-timeout)) {
            guard let chat = try await lifecycle.end(idle.id, endUserID: idle.endUserID, by: .timeout) else { continue }
            ended.append(chat)
        }
        if try await chats.inProgress().isEmpty { quietAfterCreating.withLock { $0 = created } }
        return ended
    }

    /// The sessions waiting for an agent (queued chats and waiting calls) and the human
    /// agents busy with at least one, now: what a scenario run samples as `queue_length`
    /// and `agents_busy`.
    public func occupancy() async throws -> (waiting: Int, busyAgents: Int) {
        (try await store.waitingCount(), await agentDesk.busyAgents())
    }

    /// Resumes what an earlier run of the sandbox (`--data`) left under way, as a platform
    /// node that crashed and came back would: every chat queued or with an agent goes back
    /// to its queue and an agent takes it again (a script starts anew with
    /// `session.resumed == true` and the chat's `session.messages`; a chat that had a
    /// human, or was escalated, goes to a human; a `pending` chat still waits for the app's
    /// `enqueue`), and every post-session virtual agent of a `ready` phase talks again; a
    /// chat's idle time counts from this start. The end user's app sees `chat_received`
    /// (queued, then taken) and keeps its chat; messages its SDK retried through the
    /// outage are stored once by their client id. `ccai sandbox serve` does it before it
    /// serves; one log line counts them.
    @discardableResult
    public func resumeChatsLeftOpen() async throws -> (chats: [ChatResponse], postSessions: [ChatResponse]) {
        var resumed: [ChatResponse] = []
        for open in try await chats.inProgress() {
            guard let (chat, toHuman) = try await lifecycle.requeue(open.id, endUserID: open.endUserID) else { continue }
            await agentDesk.chatResumed(chat, endUserID: open.endUserID, toHuman: toHuman)
            resumed.append(chat)
        }
        var talking: [ChatResponse] = []
        for (chat, endUserID) in try await store.chatsInReadyPostSession() {
            guard let id = try await postSessions.virtualAgent(of: .chat(chat)) else { continue }
            await agentDesk.startPostSession(chat, virtualAgentID: id, endUserID: endUserID, resumed: true)
            talking.append(chat)
        }
        if !resumed.isEmpty || !talking.isEmpty {
            log("sandbox: resumed \(resumed.count) chat(s) left open by the previous run"
                + (resumed.isEmpty ? "" : " (" + resumed.map { String($0.id) }.joined(separator: ", ") + ", back in their queues)")
                + (talking.isEmpty ? "" : " and \(talking.count) post-session virtual agent(s) ("
                    + talking.map { String($0.id) }.joined(separator: ", ") + ")"))
        }
        return (resumed, talking)
    }

    /// Rings every scheduled call whose slot has come (an `incoming_call` and a VoIP push to
    /// the end user's `voip` token; `busy` when they are on another call) and ends every
    /// callback that rang for its queue's `ring_seconds` (`no_answer`); the sandbox does it
    /// every 5 seconds by itself. Returns the calls changed.
    ///
    /// ```swift
    /// clock.advance(by: 3_600)
    /// let rung = try await sandbox.placeScheduledCallsDue()   // status == .ringing
    /// ```
    @discardableResult
    public func placeScheduledCallsDue() async throws -> [CallResponse] {
        try await scheduledCalls.placeCallsDue()
    }

    /// Ends every call an earlier run left in progress as `failed` (`end_reason` restart):
    /// a call's audio does not outlive the platform that carried it, and the app starts a
    /// new one. Returns the calls ended.
    @discardableResult
    public func failCallsLeftOpen() async throws -> [CallResponse] {
        var failed: [CallResponse] = []
        for open in try await calls.inProgress() {
            if let call = try await calls.lifecycle.end(open.call.id, endUserID: open.endUserID, reason: .restart, .fail) {
                failed.append(call)
            }
        }
        if !failed.isEmpty {
            log("sandbox: \(failed.count) call(s) left open by the previous run failed (" + failed.map { String($0.id) }.joined(separator: ", ") + ")")
        }
        return failed
    }
}
