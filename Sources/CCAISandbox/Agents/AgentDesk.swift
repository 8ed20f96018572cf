import CCAIWire
import Foundation

/// Hands each chat to an agent of its queue (the first configured one) and the customer's
/// messages to that agent: its script when the configuration gives one, the default
/// behaviour otherwise.
actor AgentDesk {
    private let scripts: [String: AgentScript]
    private var mailboxes: [Int: AgentMailbox] = [:]

    init(scripts: [String: AgentScript]) {
        self.scripts = scripts
    }

    /// A chat was queued: its agent takes it. `customData` is the session's, for scripts.
    func chatQueued(_ chat: ChatResponse, endUserID: Int, customData: JSONValue, sandbox: Sandbox) async {
        guard let name = sandbox.configuration.agents?.first(where: { $0.menus.contains(chat.menuId) })?.name else { return }
        let actions = AgentActions(sandbox: sandbox, chatID: chat.id, endUserID: endUserID, name: name)
        if let script = scripts[name] {
            let mailbox = AgentMailbox()
            mailboxes[chat.id] = mailbox
            let agent = ScriptedAgent(actions: actions, script: script, mailbox: mailbox, redacts: chat.redactionEnabled)
            Task {
                await agent.run(chat, customData: customData)
                await self.chatEnded(chat.id)
            }
        } else {
            Task { try? await DefaultAgent(actions: actions).chatQueued() }
        }
    }

    /// The customer wrote in a chat: its script's mailbox gets it (in order, before this
    /// returns), or the default agent answers it.
    func messageReceived(_ message: ChatMessage, in chat: ChatResponse, endUserID: Int, sandbox: Sandbox) async {
        if let mailbox = mailboxes[chat.id] {
            await mailbox.deliver(message)
        } else if let name = chat.agent?.name, scripts[name] == nil {
            let actions = AgentActions(sandbox: sandbox, chatID: chat.id, endUserID: endUserID, name: name)
            Task { try? await DefaultAgent(actions: actions).messageReceived(message, in: chat) }
        }
    }

    /// The chat ended, or its script returned: a script waiting for a message gets nil.
    func chatEnded(_ chatID: Int) async {
        await mailboxes.removeValue(forKey: chatID)?.close()
    }
}
