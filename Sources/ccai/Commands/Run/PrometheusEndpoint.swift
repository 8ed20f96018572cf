import CCAIScripting
import CCAISandbox
import CCAIWire
import Foundation

/// `ccai run --out prometheus=HOST:PORT`: serves the run's metrics at `GET /metrics` in
/// Prometheus's text format while the run lives (``PrometheusExposition``), without a
/// token: bind it to loopback, or to an address only the Prometheus server reaches.
///
/// ```sh
/// ccai run load.lua --out prometheus=127.0.0.1:9464   # scrape http://127.0.0.1:9464/metrics
/// ```
enum PrometheusEndpoint {
    /// The path Prometheus scrapes by default.
    static let path = "/metrics"

    /// Starts serving `scenario`'s metrics on `address`.
    static func start(_ address: ListenAddress, scenario: ScenarioRunner) throws -> HTTPServer {
        var router = HTTPRouter()
        router.add("GET", path, authentication: .none) { _ in
            let progress = scenario.progress()
            let text = PrometheusExposition.text(scenario.metrics.snapshot(), thresholds: progress?.options.thresholds ?? [],
                                                 elapsed: progress?.elapsed ?? 0)
            return HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType], body: Data(text.utf8))
        }
        do {
            return try HTTPServer(router: router, address: address.host, port: address.port, threads: 1)
        } catch {
            let reason = (error as? HTTPError)?.message ?? "\(error)"
            throw CommandFailure("--out prometheus: cannot listen on \(address.host):\(address.port): \(reason)")
        }
    }
}
