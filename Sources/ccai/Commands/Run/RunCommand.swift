import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation
import Timekeeping

/// `ccai run SCRIPT [options]`: runs a Lua script in the confined runtime. Its options
/// are declared in ``RunOptions``, its platform, plugins and runners wired in
/// ``RunWiring``, and what it shows at the end is ``RunResults``.
struct RunCommand: Command {
    var options: RunOptions.Values

    init(_ arguments: ParsedArguments) throws {
        options = try RunOptions.values(of: arguments)
    }

    /// Seconds the open chats get to end after a second Ctrl-C.
    static let hurriedChatEnding: Double = 5

    /// What starts the run's dashboard (once) at an address: with the run's controls
    /// installed, except in virtual time, where only Stop works.
    private static func dashboardStarter(scenario: ScenarioRunner, platform: PlatformConnection.Platform, interruption: Interruption,
                                         into slot: RunValue<Dashboard>) -> @Sendable (ListenAddress) throws -> Void {
        let control = platform.simulation == nil ? LiveControl() : nil
        let simulation = platform.simulation
        let format = Date.VerbatimFormatStyle(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
            timeZone: platform.timeZone, calendar: Calendar(identifier: .gregorian))
        let hooks = Dashboard.Hooks(control: control, stop: { interruption.interrupt() },
                                    interrupted: { interruption.exitStatus != nil },
                                    simulatedTime: { simulation.map { $0.clock.now().formatted(format) } })
        return { address in
            let dashboard = try Dashboard.start(address, scenario: scenario, hooks: hooks)
            scenario.control = control
            slot.value = dashboard
            printError("dashboard: \(dashboard.url) (Stop there stops the run as Ctrl-C does)")
            if !Dashboard.isLoopback(address) {
                printError("warning: the dashboard listens on \(address.host):\(dashboard.server.port), beyond this machine: it has no "
                           + "login, and whoever reaches it can steer or stop the run")
            }
        }
    }

    /// Runs the script or scenario; returns the exit status.
    func execute() async throws -> ExitStatus {
        let wiring = try await RunWiring.start(options)
        let runClock: any TimeSource = wiring.platform.simulation?.clock ?? SystemClock()
        var scenario = wiring.scenario(clock: runClock)
        let jsonLines: JSONLinesOutput?
        do {
            jsonLines = try options.outputs.jsonLines()
        } catch {
            await wiring.stop()
            throw CommandFailure("\(error)")
        }
        if let jsonLines { scenario.metrics.streamSamples(to: jsonLines.write) }
        let stoppable = scenario
        let interruption = Interruption(onFirst: { _ in stoppable.interrupt() }, onSecond: { _ in stoppable.stopNow() })
        let dashboard = RunValue<Dashboard>()
        let startDashboard = Self.dashboardStarter(scenario: stoppable, platform: wiring.platform, interruption: interruption,
                                                   into: dashboard)
        scenario.onOptions = { scenarioOptions in
            jsonLines?.describe(scenarioOptions.thresholds)
            guard dashboard.value == nil, let text = scenarioOptions.dashboard else { return }
            guard let address = ListenAddress(text) else {
                throw CommandFailure("options.dashboard expects true or \"HOST:PORT\" with an IPv4 HOST or localhost, got "
                                     + "'\(TerminalText.escaped(text))'")
            }
            // A script does not open the run to the network: only the command line does.
            guard Dashboard.isLoopback(address) else {
                throw CommandFailure("options.dashboard listens on loopback only (127.0.0.1 or localhost), got "
                                     + "'\(TerminalText.escaped(text))': give --dashboard HOST:PORT to listen elsewhere")
            }
            try startDashboard(address)
        }
        let prometheus: HTTPServer?
        do {
            prometheus = try options.outputs.prometheus.map { try PrometheusEndpoint.start($0, scenario: scenario) }
            if let address = options.dashboard { try startDashboard(address) }
        } catch {
            interruption.cancel()
            await dashboard.value?.finish(report: nil, exitStatus: ExitStatus.failure.rawValue)
            await wiring.stop()
            throw error
        }
        if let prometheus { printError("prometheus: scrape \(prometheus.baseURL)\(PrometheusEndpoint.path) while the run lives") }
        let started = runClock.now()
        let progress = ProgressLine()
        if !options.quiet { progress.start { stoppable.progress() } }
        var results = RunResults()
        var status = ExitStatus.success
        do {
            let outcome: ScenarioRunner.Outcome
            do { outcome = try await scenario.run() } catch ScenarioRunner.Failure.restart(let missing) {
                progress.stop()
                interruption.cancel()
                try VirtualTimeSetup.restart(with: missing + options.commandLine)
                return .failure
            }
            progress.stop()
            results = await RunResults.report(outcome, of: scenario, options: options, platform: wiring.platform, started: started,
                                        elapsed: runClock.now().timeIntervalSince(started), jsonLines: jsonLines,
                                        interrupted: interruption.exitStatus != nil, liveChanges: dashboard.value?.changesMade ?? [])
        } catch {
            status = ErrorReport.render(error)
            if let failure = ErrorReport.failureMessage(error) { RunResults.writeJUnitError(failure, options: options) }
        }
        progress.stop()
        // A run that did not get through writes no samples file: an earlier one stays.
        jsonLines?.abandon()
        for line in wiring.logger.repeats() { printError(line) }
        if interruption.exitStatus != nil || scenario.timedOut || scenario.memoryStop != nil {
            await wiring.connections.endOpenChats(within: interruption.isHurried ? Self.hurriedChatEnding : nil)
        }
        interruption.cancel()
        await prometheus?.stop(grace: 1)
        if let live = dashboard.value {
            let ending = interruption.exitStatus ?? (scenario.timedOut || scenario.memoryStop != nil ? .failure : results.status(status))
            let page = results.report.flatMap { report -> String? in
                guard let snapshot = try? report.snapshot(), let reportOptions = try? report.options() else { return nil }
                return RunOutputs.htmlPage(report, snapshot: snapshot, options: reportOptions)
            }
            await live.finish(report: page, exitStatus: ending.rawValue)
            let changes = live.changesMade
            if !changes.isEmpty { printError("dashboard: the run was changed from its page: " + changes.joined(separator: "; ")) }
        }
        await wiring.stop()
        if let signalled = interruption.exitStatus {
            printError("interrupted: the summary above is of what ran; chats still open were ended")
            return signalled
        }
        if scenario.timedOut {
            throw CommandFailure("the run timed out (--timeout or options.timeout): its VUs were stopped and their open chats ended")
        }
        if let problem = scenario.memoryStop {
            throw CommandFailure(problem + "; the summary above is of what ran, and open chats were ended")
        }
        return results.status(status)
    }
}
