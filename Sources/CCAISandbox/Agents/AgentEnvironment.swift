import CCAIWire
import Foundation
import Timekeeping

/// What the sandbox's agents work with: the configuration and the domain types they act
/// through. The agent desk gets it once, when the sandbox starts, and hands it to every
/// agent it starts. A class: every agent, and every closure of an agent script's `agent`
/// table, holds it by reference instead of copying the configuration.
final class AgentEnvironment: Sendable {
    let configuration: SandboxConfiguration
    let queues: Queues
    let chats: Chats
    let lifecycle: ChatLifecycle
    /// Calls: their transitions and what waits.
    let calls: Calls
    let conversation: Conversation
    let publisher: EventPublisher
    let smartActions: SmartActions
    let forms: Forms
    let screenShares: ScreenShares
    let files: ChatFiles
    /// The time of agents' waits.
    let clock: any TimeSource
    /// Where a failing agent script and its `print`s are reported.
    let log: @Sendable (String) -> Void

    init(configuration: SandboxConfiguration, queues: Queues, chats: Chats, lifecycle: ChatLifecycle, calls: Calls,
         conversation: Conversation, publisher: EventPublisher, smartActions: SmartActions, forms: Forms,
         screenShares: ScreenShares, files: ChatFiles, clock: any TimeSource, log: @escaping @Sendable (String) -> Void)
    {
        self.configuration = configuration
        self.queues = queues
        self.chats = chats
        self.lifecycle = lifecycle
        self.calls = calls
        self.conversation = conversation
        self.publisher = publisher
        self.smartActions = smartActions
        self.forms = forms
        self.screenShares = screenShares
        self.files = files
        self.clock = clock
        self.log = log
    }
}
