import CCAIWire
import Foundation

/// How the sandbox's chat states read as the Apps API's published statuses, in one table
/// (docs/platform-fidelity.md shows it):
///
/// | sandbox chat                                   | status        | status_text            |
/// |------------------------------------------------|---------------|------------------------|
/// | `pending` (pre-session smart actions)          | `queued`      | `awaiting_pre_session` |
/// | `queued`, escalated from its virtual agent     | `queued`      | `escalating`           |
/// | `queued`                                       | `queued`      | `waiting_for_agent`    |
/// | `assigned`/`active` with a human agent         | `assigned`    | `with_agent`           |
/// | `assigned`/`active` with a virtual agent       | `assigned`    | `with_virtual_agent`   |
/// | ended by `timeout`                             | `no_response` | `idle_timeout`         |
/// | ended by `restart`                             | `failed`      | `platform_restart`     |
/// | ended after a deflection to another channel    | `finished`    | `deflected`            |
/// | ended by the end user before any agent         | `canceled`    | `abandoned_in_queue`   |
/// | ended by the end user (or the server for them) | `finished`    | `finished_by_end_user` |
/// | ended by an agent or a virtual agent           | `finished`    | `finished_by_agent`    |
enum AppsChatStatusMapping {
    static func status(of chat: ChatResponse, _ facts: SandboxStore.AppsChatFacts) -> (AppsChatStatus, AppsChatSubStatus) {
        switch chat.status {
        case .pending:
            return (.queued, .awaitingPreSession)
        case .queued:
            return (.queued, facts.escalated ? .escalating : .waitingForAgent)
        case .assigned, .active:
            return (.assigned, chat.agent == nil && chat.virtualAgent != nil ? .withVirtualAgent : .withAgent)
        case .ended:
            return ended(chat, facts)
        }
    }

    private static func ended(_ chat: ChatResponse, _ facts: SandboxStore.AppsChatFacts) -> (AppsChatStatus, AppsChatSubStatus) {
        let anyAgent = chat.agent != nil || chat.virtualAgent != nil || !facts.agentNames.isEmpty || !facts.virtualAgentNames.isEmpty
        switch chat.endedBy {
        case .timeout?:
            return (.noResponse, .idleTimeout)
        case .restart?:
            return (.failed, .platformRestart)
        case .agent? where facts.escalationChannel.map({ $0 != "chat" }) ?? false:
            return (.finished, .deflected)
        case .endUser? where !anyAgent:
            return (.canceled, .abandonedInQueue)
        case .endUser?:
            return (.finished, .finishedByEndUser)
        default:
            return (.finished, .finishedByAgent)
        }
    }
}
