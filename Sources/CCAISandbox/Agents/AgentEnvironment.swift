import CCAIWire
import Foundation
import Timekeeping

/// What the sandbox's agents work with: the configuration and the domain types they act
/// through. The agent desk gets it once, when the sandbox starts, and hands it to every
/// agent it starts.
struct AgentEnvironment: Sendable {
    let configuration: SandboxConfiguration
    let queues: Queues
    let chats: Chats
    let lifecycle: ChatLifecycle
    let conversation: Conversation
    let publisher: EventPublisher
    let smartActions: SmartActions
    let forms: Forms
    let screenShares: ScreenShares
    let files: ChatFiles
    /// The time of agents' waits.
    let clock: any Clock
    /// Where a failing agent script and its `print`s are reported.
    let log: @Sendable (String) -> Void
}
