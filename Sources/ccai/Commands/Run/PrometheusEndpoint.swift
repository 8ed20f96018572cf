import CCAIScripting
import CCAISandbox
import CCAIWire
import Foundation

/// `ccai run --out prometheus=HOST:PORT`: serves the run's metrics at `GET /metrics` in
/// Prometheus's text format while the run lives (``PrometheusExposition``), without a
/// token: bind it to loopback, or to an address only the Prometheus server reaches. The
/// text is made at most once a second, once for scrapes that come together, so that
/// scraping often or from many places costs the run no more than one scrape a second.
///
/// ```sh
/// ccai run load.lua --out prometheus=127.0.0.1:9464   # scrape http://127.0.0.1:9464/metrics
/// ```
enum PrometheusEndpoint {
    /// The path Prometheus scrapes by default.
    static let path = "/metrics"

    /// Starts serving `scenario`'s metrics on `address`.
    static func start(_ address: ListenAddress, scenario: ScenarioRunner) throws -> HTTPServer {
        let exposition = Exposition(scenario: scenario)
        var router = HTTPRouter()
        router.add("GET", path, authentication: .none) { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType], body: await exposition.text())
        }
        do {
            return try HTTPServer(router: router, address: address.host, port: address.port, threads: 1)
        } catch {
            throw CommandFailure("--out prometheus: " + ((error as? HTTPError)?.message ?? "\(error)"))
        }
    }

    /// The latest text, made again when a scrape finds it older than a second.
    private actor Exposition {
        let scenario: ScenarioRunner
        private var latest: (text: Data, madeAt: ContinuousClock.Instant)?
        private var making: Task<Data, Never>?

        init(scenario: ScenarioRunner) {
            self.scenario = scenario
        }

        func text() async -> Data {
            if let latest, ContinuousClock.now - latest.madeAt < .seconds(1) { return latest.text }
            if let making { return await making.value }
            let scenario = self.scenario
            let task = Task {
                let progress = scenario.progress()
                return Data(PrometheusExposition.text(scenario.metrics.snapshot(), thresholds: progress?.options.thresholds ?? [],
                                                      elapsed: progress?.elapsed ?? 0).utf8)
            }
            making = task
            let text = await task.value
            latest = (text, ContinuousClock.now)
            making = nil
            return text
        }
    }
}
