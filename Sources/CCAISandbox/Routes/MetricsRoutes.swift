import CCAIWire
import Foundation

/// `GET /admin/metrics`: the sandbox's own metrics in Prometheus's text format, behind the
/// admin token (``SandboxMetrics``); a sandbox started without metrics answers 404.
struct MetricsRoutes: Sendable {
    var metrics: SandboxMetrics?
    var configuration: SandboxConfiguration
    var store: SandboxStore
    var desk: AgentDesk
    var streams: EventStreams

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.metrics, exposition)
    }

    private func exposition(_: HTTPRequest) async throws -> HTTPResponse {
        guard let metrics else {
            throw HTTPError.notFound("this sandbox collects no metrics: start it with metrics on (ccai sandbox serve --metrics)")
        }
        let waiting = try await store.waitingCountsByChannel()
        let language = configuration.company.languages.first ?? "en"
        let queues = configuration.allMenus.map { menu in
            var channels: [(channel: String, count: Int)] = []
            if menu.channels?.chat != nil { channels.append(("chat", waiting.chats[menu.id] ?? 0)) }
            if menu.channels?.voiceCall != nil { channels.append(("voice_call", waiting.calls[menu.id] ?? 0)) }
            return (menuID: menu.id, name: menu.name.text(language, fallback: language) ?? "", waiting: channels)
        }
        let gauges = SandboxMetrics.Gauges(queues: queues, agents: configuration.agents?.count ?? 0,
                                           busyAgents: await desk.busyAgents(), eventStreams: streams.openCount)
        return HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType], body: Data(metrics.text(gauges).utf8))
    }
}
