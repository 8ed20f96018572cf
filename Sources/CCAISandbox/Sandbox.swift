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
    /// The time of tokens and JWTs.
    let clock: any Clock
    /// The time of business hours: `clock`, or the configuration's `clock_start` onwards.
    /// What scripts and plugins of the same run read as the time, so that "after 18:00" is
    /// after 18:00 for all of them.
    public let businessClock: any Clock
    let events: EventHub
    /// Where every event for end users is recorded and announced.
    let publisher: EventPublisher
    /// The transitions of chats, for routes, agents and the chores.
    let lifecycle: ChatLifecycle
    /// Requests per end user (`limits.requests_per_second`, `limits.burst`).
    let rateLimiter: RateLimiter
    /// Hands chats and messages to the agents.
    let agentDesk: AgentDesk
    /// Agents waiting for the end user's answers to their smart actions.
    let smartActionOutcomes: OutcomeBoard<SmartAction>
    /// Agents waiting for the end user's answers to their forms.
    let formOutcomes: OutcomeBoard<FormOutcome>
    /// Agents waiting for the end user's side of a screen share.
    let screenShareOutcomes: OutcomeBoard<ScreenShareResponse>
    /// Where the sandbox reports what goes wrong outside any request (a failing agent
    /// script, its `print`s).
    let log: @Sendable (String) -> Void
    /// The periodic chores (pruning, ending idle chats); they stop with the sandbox.
    private let chores = Mutex<[ClockTimer]>([])

    /// A sandbox whose time comes from `clock` (the real time by default). A configuration
    /// with `clock_start` moves business hours to that moment; tokens keep `clock`.
    /// Agent scripts are read now: a missing one is a ``ConfigurationError``. With
    /// `chat_timeout_seconds`, idle chats are ended every 5 seconds (of `clock`) while the
    /// sandbox lives.
    public init(configuration: SandboxConfiguration = .builtIn, dataDirectory: String? = nil,
                clock: any Clock = SystemClock(), log: @escaping @Sendable (String) -> Void = Sandbox.standardError) throws {
        try configuration.validate()
        var scripts: [String: AgentScript] = [:]
        for agent in configuration.agents ?? [] {
            if let path = agent.script { scripts[agent.name] = try AgentScript(field: "agents[\(agent.name)].script", path: path) }
        }
        var virtualScripts: [String: AgentScript] = [:]
        for (id, virtualAgent) in configuration.virtualAgents ?? [:] {
            if let path = virtualAgent.script {
                virtualScripts[id] = try AgentScript(field: "virtual_agents[\(id)].script", path: path)
            }
        }
        self.agentDesk = AgentDesk(scripts: scripts, virtualScripts: virtualScripts)
        self.log = log
        self.configuration = configuration
        let limits = configuration.limits ?? LimitsConfiguration()
        self.rateLimiter = RateLimiter(rate: limits.effectiveRequestsPerSecond, burst: limits.effectiveBurst, clock: clock)
        self.store = try SandboxStore(directory: dataDirectory, companyKey: configuration.company.key, now: clock.now())
        self.clock = clock
        events = EventHub(clock: clock)
        publisher = EventPublisher(store: store, hub: events, clock: clock)
        lifecycle = ChatLifecycle(store: store, publisher: publisher, clock: clock)
        smartActionOutcomes = OutcomeBoard(clock: clock)
        formOutcomes = OutcomeBoard(clock: clock)
        screenShareOutcomes = OutcomeBoard(clock: clock)
        if let start = configuration.clockStart.flatMap({ ISO8601DateFormatter().date(from: $0) }) {
            businessClock = OffsetClock(base: clock, start: start)
        } else {
            businessClock = clock
        }
        var chores = [clock.repeating(every: 60) { [weak self] in
            guard let self else { return }
            do { try await self.pruneOldData() } catch { self.log("sandbox: pruning old events and files failed: \(error)") }
        }]
        if configuration.chatTimeoutSeconds != nil {
            chores.append(clock.repeating(every: 5) { [weak self] in
                guard let self else { return }
                do { _ = try await self.endIdleChats() } catch { self.log("sandbox: ending idle chats failed: \(error)") }
            })
        }
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
            guard let wait = limiter.retryAfter(endUserID: endUserID) else { return nil }
            func number(_ value: Double) -> String { Checked.integer(value).map(String.init) ?? String(value) }
            return .limitExceeded("too many requests: at most \(number(limiter.rate)) a second (limits.requests_per_second) "
                                  + "after a burst of \(number(limiter.burst)) (limits.burst)", retryAfter: wait)
        }
        AuthRoutes(sandbox: self).register(in: &router)
        CompanyRoutes(sandbox: self).register(in: &router)
        QueueMenuRoutes(sandbox: self).register(in: &router)
        EventRoutes(sandbox: self).register(in: &router)
        ChatRoutes(sandbox: self).register(in: &router)
        SmartActionRoutes(sandbox: self).register(in: &router)
        MediaRoutes(sandbox: self).register(in: &router)
        FormRoutes(sandbox: self).register(in: &router)
        ScreenShareRoutes(sandbox: self).register(in: &router)
        PostSessionRoutes(sandbox: self).register(in: &router)
        TranscriptRoutes(sandbox: self).register(in: &router)
        router.adminToken = configuration.adminToken
        return router
    }

    /// Starts an HTTP server for the sandbox.
    public func serve(address: String = "127.0.0.1", port: UInt16 = 0) throws -> HTTPServer {
        let router = self.router
        return try HTTPServer(router: router, address: address, port: port)
    }

    /// Records an event for an end user (written before this returns) and wakes their
    /// event streams. Returns the event's id.
    @discardableResult
    public func publish(endUserID: Int, event: PlatformEventName, data: JSONValue) async throws -> Int64 {
        try await publisher.publish(endUserID: endUserID, event: event, jsonText: try data.jsonText())
    }

    /// Ends the chats whose end user has been silent for `chat_timeout_seconds` (the
    /// sandbox also does it every 5 seconds by itself); returns them.
    ///
    /// ```swift
    /// let ended = try await sandbox.endIdleChats()   // ended_by == "timeout"
    /// ```
    @discardableResult
    public func endIdleChats() async throws -> [ChatResponse] {
        guard let timeout = configuration.chatTimeoutSeconds else { return [] }
        let now = clock.now()
        var ended: [ChatResponse] = []
        for idle in try await store.chatsIdle(since: now.addingTimeInterval(-timeout)) {
            guard let chat = try await lifecycle.end(idle.id, endUserID: idle.endUserID, by: .timeout) else { continue }
            await agentDesk.chatEnded(chat.id, sandbox: self)
            ended.append(chat)
        }
        return ended
    }

    /// Ends the chats an earlier run of the sandbox left open (`--data`): their agents and
    /// scripts went with that run, so each gets a system message saying so, ends with
    /// `ended_by = "restart"` and a `chat_received`; one log line counts them. `ccai sandbox
    /// serve` does it before it serves. Returns the chats.
    @discardableResult
    public func endChatsLeftOpen() async throws -> [ChatResponse] {
        var ended: [ChatResponse] = []
        for open in try await store.chatsInProgress() {
            let now = clock.now()
            let (message, _) = try await store.addMessage(
                chatID: open.id, sender: ChatMessageSender(type: "system"), type: "noti",
                text: "The sandbox restarted; this conversation has ended.", event: "chatEnded", clientMessageID: nil, now: now)
            try await publisher.messages([message], endUserID: open.endUserID)
            guard let chat = try await lifecycle.end(open.id, endUserID: open.endUserID, by: .restart) else { continue }
            ended.append(chat)
        }
        if !ended.isEmpty {
            log("sandbox: ended \(ended.count) chat(s) left open by the previous run: " + ended.map { String($0.id) }.joined(separator: ", "))
        }
        return ended
    }

    /// The virtual agent that takes the chats of a queue, if it has one.
    func virtualAgent(forMenu menuID: Int) -> (id: String, configuration: VirtualAgentConfiguration)? {
        guard let id = configuration.allMenus.first(where: { $0.id == menuID })?.channels?.chat?.virtualAgent,
            let virtualAgent = configuration.virtualAgents?[id]
        else { return nil }
        return (id, virtualAgent)
    }

    /// The queues as they are now: business hours and the sessions waiting.
    func queueEngine() async throws -> QueueMenuEngine {
        QueueMenuEngine(configuration: configuration, now: businessClock.now(), waiting: try await store.waitingCounts())
    }

    /// The session of the request's bearer token, or a 401.
    func session(for request: HTTPRequest) async throws -> Session {
        guard let token = request.bearerToken else {
            throw HTTPError.unauthenticated("an auth token is required (Authorization: Bearer TOKEN)")
        }
        guard let session = try await store.session(token: token, now: clock.now()) else {
            throw HTTPError.unauthenticated("the auth token is unknown, revoked or expired; authenticate again")
        }
        return session
    }
}
