import CCAIWire
import Foundation
import Timekeeping

/// The configuration's queues as they stand: each menu by id, the virtual agent that
/// takes a queue's chats, and the live menu tree (business hours on the business clock,
/// the sessions waiting).
///
/// ```swift
/// let menu = try queues.menu(id)                       // or a 404
/// if let deflection = try await queues.engine().deflection(menu) { ... }
/// ```
struct Queues: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// Business hours' time (docs/sdk-and-sandbox.md, `clock_start`).
    let businessClock: any TimeSource
    /// Every wait estimate's formula.
    let estimator: WaitEstimator
    /// The menus' answers as encoded, while the queues stay as they were.
    let menuEncodings = QueueMenuEncodings()

    /// The queue menu `id`, or a 404.
    func menu(_ id: Int) throws -> MenuConfiguration {
        guard let menu = configuration.allMenus.first(where: { $0.id == id }) else {
            throw HTTPError.notFound("there is no queue menu \(id)")
        }
        return menu
    }

    /// The virtual agent that takes the chats of a queue, if it has one.
    func virtualAgent(forMenu menuID: Int) -> (id: String, configuration: VirtualAgentConfiguration)? {
        virtualAgent(configuration.allMenus.first(where: { $0.id == menuID })?.channels?.chat?.virtualAgent)
    }

    /// The virtual agent that answers the calls of a queue, if it has one.
    func voiceVirtualAgent(forMenu menuID: Int) -> (id: String, configuration: VirtualAgentConfiguration)? {
        virtualAgent(configuration.allMenus.first(where: { $0.id == menuID })?.channels?.voiceCall?.virtualAgent)
    }

    private func virtualAgent(_ id: String?) -> (id: String, configuration: VirtualAgentConfiguration)? {
        guard let id, let virtualAgent = configuration.virtualAgents?[id] else { return nil }
        return (id, virtualAgent)
    }

    /// The announcements of `menu`'s calls in the end user's language (resolved as the
    /// menus' is).
    func audibleMessages(_ menu: MenuConfiguration, language requested: String?) -> AudibleMessages {
        let language = QueueMenuEngine(configuration: configuration, now: businessClock.now()).language(requested)
        return AudibleMessages(menuId: menu.id, messages: configuration.audibleMessages(forMenu: menu.id, language: language))
    }

    /// The queues as they are now: business hours and the sessions waiting.
    func engine() async throws -> QueueMenuEngine {
        let byChannel = try await store.waitingCountsByChannel()
        var waiting = byChannel.chats
        waiting.merge(byChannel.calls, uniquingKeysWith: +)
        return QueueMenuEngine(configuration: configuration, now: businessClock.now(), waiting: waiting,
                               waitingByChannel: [.chat: byChannel.chats, .voiceCall: byChannel.calls], estimator: estimator)
    }
}
