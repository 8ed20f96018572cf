import CCAIScripting
import CCAISandbox
import CCAIWire
import Foundation
import Synchronization

/// `ccai run --dashboard [HOST:PORT]`: one page, served by the run, that shows it live
/// (``DashboardFeed``, streamed over server-sent events once a second) and lets a person
/// pause and resume arrivals, change a scenario's arrival rate or VU target
/// (``LiveControl``) and stop the run as Ctrl-C does. At the end the page offers the HTML
/// report. docs/dashboard.md.
///
/// The page and its script and styles are the binary's own (no asset from elsewhere),
/// under a strict Content-Security-Policy. It has no login: it listens on loopback unless
/// told otherwise, answers only requests whose `Host` is its own address (a web page
/// elsewhere cannot reach it through a name it controls), and takes a change only with the
/// page's CSRF token in `X-CSRF-Token` (a form or script of another origin cannot send
/// it). At most ``maximumPages`` pages watch at once; a page that reads too slowly skips
/// updates rather than holding them.
final class Dashboard: Sendable {
    /// Where the dashboard listens unless told: k6's port.
    static let defaultAddress = ListenAddress(host: "127.0.0.1", port: 5665)
    /// The most pages that watch at once.
    static let maximumPages = 8
    /// The bytes a page may leave unread before its updates are skipped.
    static let maximumUnreadBytes = 1 << 20
    /// The largest control request.
    static let maximumBodyBytes = 1 << 10
    /// The highest arrival rate the controls set.
    static let maximumArrivalsPerSecond = 100_000

    /// How the run wires the controls.
    struct Hooks: Sendable {
        /// The runner's controls; nil in virtual time (only Stop works there).
        var control: LiveControl?
        /// A Ctrl-C.
        var stop: @Sendable () -> Void
        /// Whether the run was interrupted (it is stopping).
        var interrupted: @Sendable () -> Bool
        /// The simulated time of day, in virtual time.
        var simulatedTime: @Sendable () -> String?
    }

    let server: HTTPServer
    /// The page's URL (on this machine, for the wildcard address).
    var url: String { server.address == "0.0.0.0" ? "http://127.0.0.1:\(server.port)/" : server.baseURL + "/" }
    private let scenario: ScenarioRunner
    private let hooks: Hooks
    private let token: String
    private let pages = Mutex<[Int: HTTPEventStream]>([:])
    /// The pages admitted, from their request until their stream ends.
    private let reserved = Mutex<Set<Int>>([])
    /// What a person changed, with when (the run's seconds), said at the end.
    private let changes = Mutex<[String]>([])
    private let nextPage = Mutex(0)
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    private init(server: HTTPServer, scenario: ScenarioRunner, hooks: Hooks, token: String) {
        self.server = server
        self.scenario = scenario
        self.hooks = hooks
        self.token = token
    }

    /// Starts the dashboard of `scenario` on `address`.
    static func start(_ address: ListenAddress, scenario: ScenarioRunner, hooks: Hooks) throws -> Dashboard {
        let token = Digest.randomHex(bytes: 32)
        let box = RunValue<Dashboard>()
        var router = HTTPRouter()
        let route: (@escaping @Sendable (Dashboard, HTTPRequest) async throws -> HTTPResponse) -> HTTPRouter.Handler = { handler in
            { request in
                guard let dashboard = box.value else { throw HTTPError(code: .unavailable, message: "starting") }
                try dashboard.checkHost(request)
                return try await handler(dashboard, request)
            }
        }
        router.add("GET", "/", authentication: .none, route { dashboard, _ in dashboard.page() })
        router.add("GET", "/dashboard.js", authentication: .none, route { _, _ in .page(DashboardPage.script, type: "text/javascript") })
        router.add("GET", "/dashboard.css", authentication: .none, route { _, _ in .page(DashboardPage.styles, type: "text/css") })
        router.add("GET", "/events", authentication: .none, route { dashboard, _ in try dashboard.events() })
        for action in ControlAction.allCases {
            router.add("POST", "/api/" + action.rawValue, maximumBodyBytes: maximumBodyBytes, authentication: .none,
                       route { dashboard, request in try dashboard.act(action, request) })
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(router: router, address: address.host, port: address.port, threads: 1)
        } catch {
            throw CommandFailure("--dashboard: " + ((error as? HTTPError)?.message ?? "\(error)"))
        }
        let dashboard = Dashboard(server: server, scenario: scenario, hooks: hooks, token: token)
        box.value = dashboard
        dashboard.ticker.withLock { $0 = Task { await dashboard.tick() } }
        return dashboard
    }

    /// Sends the last update and, when there is one, the HTML report; waits (a few
    /// seconds at most) for the pages to read them; stops serving.
    func finish(report html: String?, exitStatus: Int32) async {
        ticker.withLock { $0 }?.cancel()
        var update = DashboardFeed.update(scenario.metrics.snapshot(), progress: scenario.progress(), control: hooks.control?.current,
                                          ended: true, simulatedTime: hooks.simulatedTime())
        if update.elapsedSeconds == 0, let last = lastElapsed.withLock({ $0 }) { update.elapsedSeconds = last }
        let ending = Ending(exitStatus: exitStatus, report: html)
        let texts = [(try? DashboardFeed.encoder.encode(update)).map { ("update", $0) },
                     (try? DashboardFeed.encoder.encode(ending)).map { ("ended", $0) }].compactMap { $0 }
        let open = pages.withLock { Array($0.values) }
        for page in open {
            for (event, data) in texts { page.send(event: event, data: String(decoding: data, as: UTF8.self)) }
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline, open.contains(where: { $0.isOpen && $0.pendingBytes > 0 }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for page in open { page.close() }
        await server.stop(grace: 1)
    }

    /// What the page is told at the end.
    private struct Ending: Encodable {
        var exitStatus: Int32
        /// The HTML report, for the page to offer as a download.
        var report: String?
    }

    private let lastElapsed = Mutex<Double?>(nil)

    /// Once a second while a page watches: the update, to every page that keeps up.
    private func tick() async {
        while !Task.isCancelled {
            let watching = pages.withLock { Array($0.values) }
            if !watching.isEmpty, let text = currentUpdate() {
                for page in watching where page.pendingBytes <= Self.maximumUnreadBytes { page.send(event: "update", data: text) }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func currentUpdate() -> String? {
        let progress = scenario.progress()
        if let elapsed = progress?.elapsed { lastElapsed.withLock { $0 = elapsed } }
        let update = DashboardFeed.update(scenario.metrics.snapshot(), progress: progress, control: hooks.control?.current,
                                          interrupted: hooks.interrupted(), simulatedTime: hooks.simulatedTime())
        return (try? DashboardFeed.encoder.encode(update)).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: - Routes

    private func page() -> HTTPResponse {
        .page(DashboardPage.html(token: token), type: "text/html")
    }

    private func events() throws -> HTTPResponse {
        let id = nextPage.withLock { next in
            next += 1
            return next
        }
        // The page's place is taken now, under the lock that counts them, so that pages
        // arriving together cannot all pass the count.
        let admitted = reserved.withLock { reserved in
            guard reserved.count < Self.maximumPages else { return false }
            reserved.insert(id)
            return true
        }
        guard admitted else {
            throw HTTPError(code: .unavailable, message: "\(Self.maximumPages) pages watch this run already: close one")
        }
        var response = HTTPResponse.eventStream { [self] stream in
            pages.withLock { $0[id] = stream }
            if let text = currentUpdate() { stream.send(event: "update", data: text) }
            await stream.ended()
            pages.withLock { _ = $0.removeValue(forKey: id) }
            _ = reserved.withLock { $0.remove(id) }
        }
        response.headers.merge(HTTPResponse.pageHeaders) { mine, _ in mine }
        return response
    }

    /// The controls the page's buttons post to.
    enum ControlAction: String, CaseIterable {
        case pause, resume, rate, vus, stop
    }

    /// What `rate` and `vus` take.
    private struct ControlBody: Decodable {
        var scenario: String
        var value: Double
    }

    private func act(_ action: ControlAction, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let given = request.headers["x-csrf-token"], ConstantTime.equal(given, token) else {
            throw HTTPError.forbidden("a change needs the page's X-CSRF-Token")
        }
        if action == .stop {
            note("Stop")
            hooks.stop()
            return HTTPResponse(status: 204)
        }
        guard let control = hooks.control else {
            throw HTTPError.conflict("in virtual time only Stop works: the simulated clock runs as fast as it can, so "
                                      + "there is no time to pause or reshape")
        }
        switch action {
        case .pause:
            control.setPaused(true)
            note("Pause")
        case .resume:
            control.setPaused(false)
            note("Resume")
        case .rate, .vus:
            let body: ControlBody
            do {
                body = try JSONDecoder().decode(ControlBody.self, from: request.body)
            } catch {
                throw HTTPError.badRequest("expected {\"scenario\": NAME, \"value\": NUMBER}")
            }
            guard let scenario = scenario.progress()?.options.workloads.first(where: { $0.name == body.scenario }) else {
                throw HTTPError.notFound("no scenario '\(TerminalText.escaped(body.scenario))' runs now")
            }
            try set(action, body.value, on: scenario, control)
        case .stop: break
        }
        return HTTPResponse(status: 204)
    }

    private func set(_ action: ControlAction, _ value: Double, on scenario: NamedScenario, _ control: LiveControl) throws {
        let isArrival: Bool
        if case .arrivalRate = scenario.run.executor { isArrival = true } else { isArrival = false }
        if action == .rate {
            guard isArrival else { throw HTTPError.conflict("\(scenario.name) has VUs, not arrivals: set its VU target") }
            guard case .arrivalRate(let arrival) = scenario.run.executor, value.isFinite, value >= 0,
                  value / arrival.timeUnit <= Double(Self.maximumArrivalsPerSecond)
            else {
                throw HTTPError.badRequest("a rate is a number of arrivals per time unit, from 0 to "
                                           + "\(Self.maximumArrivalsPerSecond) a second")
            }
            control.setRate(value, scenario: scenario.name)
            note("rate of \(scenario.name) \(PrometheusText.number(value))")
        } else {
            guard !isArrival else { throw HTTPError.conflict("\(scenario.name) has arrivals: set its rate") }
            guard value.isFinite, value >= 0, value == value.rounded(), value <= Double(scenario.run.peakVUs) else {
                throw HTTPError.badRequest("the VU target of \(scenario.name) is a whole number from 0 to \(scenario.run.peakVUs), "
                                                + "the VUs it plans")
            }
            control.setVUTarget(Int(value), scenario: scenario.name)
            note("VU target of \(scenario.name) \(Int(value))")
        }
    }

    /// Keeps a change for the end of the run, with the run's time.
    private func note(_ change: String) {
        let elapsed = scenario.progress()?.elapsed ?? 0
        changes.withLock { $0.append("\(change) at \(Int(elapsed)) s") }
    }

    /// What a person changed from the page, in order: the run's summary is of a run they
    /// reshaped, and says so.
    var changesMade: [String] { changes.withLock { $0 } }

    /// Refuses a request whose `Host` is not this server's address (DNS rebinding): on
    /// loopback `127.0.0.1:PORT` or `localhost:PORT`, else the address listened on; on the
    /// wildcard address `0.0.0.0`, which has no one name, any IPv4 literal or `localhost`
    /// with the port, never a DNS name (what rebinding needs).
    private func checkHost(_ request: HTTPRequest) throws {
        let port = server.port
        guard let host = request.headers["host"]?.lowercased() else {
            throw HTTPError.forbidden("the dashboard answers requests to its own address only")
        }
        let allowed: Bool
        switch server.address {
        case "127.0.0.1": allowed = host == "127.0.0.1:\(port)" || host == "localhost:\(port)"
        case "0.0.0.0":
            let name = host.hasSuffix(":\(port)") ? String(host.dropLast(":\(port)".count)) : ""
            allowed = name == "localhost" || Self.isIPv4Literal(name)
        default: allowed = host == "\(server.address):\(port)"
        }
        guard allowed else { throw HTTPError.forbidden("the dashboard answers requests to its own address only") }
    }

    /// Whether `text` is a dotted IPv4 address (four numbers 0 to 255).
    static func isIPv4Literal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }

    /// Whether `address` is on the loopback interface.
    static func isLoopback(_ address: ListenAddress) -> Bool {
        address.host == "127.0.0.1" || (address.host.hasPrefix("127.") && isIPv4Literal(address.host))
    }
}
