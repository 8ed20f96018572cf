import CCAIWire
import Foundation

/// Hands each chat and call to its agents and the customer's messages to whoever has the
/// chat. A queue with a virtual agent gives it the chat first; otherwise, or after an
/// escalation, the least busy human agent of the queue with room (`max_chats`, counting
/// chats and calls together; between equals, the one idle the longest, as contact
/// centers route) takes it, or it waits until one has room; an agent with
/// room takes the oldest chat or call waiting on its queues. Only agents on shift
/// (``ShiftRoster``) take work: one whose shift ends finishes its sessions and takes no
/// more, and one whose shift starts takes what waits. An agent runs its script
/// when the configuration gives one, the default behaviour otherwise. Agents' loads are
/// counted from this process's start.
actor AgentDesk: SessionChangeObserver {
    /// What the agents work with.
    private let environment: AgentEnvironment
    /// Who works now; the sandbox wakes the desk at each shift's start (``shiftStarted(_:)``).
    let roster: ShiftRoster
    /// Human agents' scripts by agent name; virtual agents' by virtual agent id.
    private let scripts: [String: AgentScript]
    private let virtualScripts: [String: AgentScript]
    /// The messages on their way to a running script, by chat.
    private var mailboxes: [Int: AgentMailbox] = [:]
    /// What ends the waits of a running call script, by call.
    private var callMailboxes: [Int: AgentMailbox] = [:]
    /// What each human agent has: their load is counted in work items, whatever the
    /// kind of conversation (``WorkItem``), against their `max_chats`.
    private var load: [String: Set<WorkItem>] = [:]
    /// When the human agent holding each chat or call took it: its handle time, recorded
    /// when it is let go (the wait estimates' average duration, ``HandleTimes``).
    private var takenAt: [WorkItem: Date] = [:]
    /// When each human agent last let a chat or call go, as a count of such moments: the
    /// lower, the longer ago (an agent who has not yet is lower still).
    private var lastReleased: [String: Int] = [:]
    private var releases = 0
    /// Ended chats whose post-session virtual agent talks, with its id.
    private var postSessions: [Int: String] = [:]

    init(environment: AgentEnvironment, scripts: [String: AgentScript], virtualScripts: [String: AgentScript]) {
        self.environment = environment
        roster = ShiftRoster(configuration: environment.configuration, clock: environment.queues.businessClock)
        self.scripts = scripts
        self.virtualScripts = virtualScripts
    }

    /// A chat was queued: its virtual agent, or else its human agent, takes it. A script
    /// gets the session's data as the chat keeps it (``Chats/sessionData(_:)``).
    /// A chat an earlier run left in progress, back in its queue: a human takes it when
    /// one had it or it was escalated, else it is queued as new; a script gets
    /// `session.resumed == true`.
    func chatResumed(_ chat: ChatResponse, endUserID: Int, toHuman: Bool) async {
        if toHuman {
            humanTakes(chat, endUserID: endUserID, resumed: true)
        } else {
            await chatQueued(chat, endUserID: endUserID, resumed: true)
        }
    }

    func chatQueued(_ chat: ChatResponse, endUserID: Int, resumed: Bool = false) async {
        if let found = environment.queues.virtualAgent(forMenu: chat.menuId) {
            let (id, virtualAgent) = (found.id, found.configuration)
            let actions = agentActions(chat.id, endUserID: endUserID, name: virtualAgent.name ?? id, kind: .virtual)
            let escalate = escalation(chatID: chat.id, endUserID: endUserID)
            if let script = virtualScripts[id] {
                let mailbox = AgentMailbox(clock: environment.clock)
                run(ScriptedAgent(actions: actions, script: script, mailbox: mailbox, escalate: escalate, resumed: resumed), chat)
            } else {
                Task { try? await VirtualAgent(actions: actions, configuration: virtualAgent, escalate: escalate).chatQueued() }
            }
        } else {
            humanTakes(chat, endUserID: endUserID, resumed: resumed)
        }
    }

    /// The customer wrote in a chat: a running script gets it (in order, before this
    /// returns), or the default behaviour of whoever has the chat answers it. Agents get
    /// it as they see it (``Conversation/agentView(of:in:)``: redacted, as stored, when the
    /// queue redacts), read in the caller's task, not the desk's.
    private nonisolated func messageReceived(_ message: ChatMessage, in chat: ChatResponse, endUserID: Int) async {
        do {
            await deliver(try await environment.conversation.agentView(of: message, in: chat), in: chat, endUserID: endUserID)
        } catch {
            environment.log("sandbox: message \(message.id) of chat \(chat.id) could not be read for its agent: \(error)")
        }
    }

    private func deliver(_ message: ChatMessage, in chat: ChatResponse, endUserID: Int) async {
        if let mailbox = mailboxes[chat.id] {
            await mailbox.deliver(message)
        } else if let id = postSessions[chat.id], let configuration = environment.configuration.virtualAgents?[id] {
            let actions = postSessionActions(chat, id: id, configuration: configuration, endUserID: endUserID)
            Task { try? await PostSessionVirtualAgent(actions: actions, configuration: configuration).messageReceived(message, in: chat) }
        } else if let name = chat.agent?.name {
            // A script gets messages through its mailbox, and a person reads them at the console.
            guard scripts[name] == nil, agent(named: name)?.isPlayedAtTheConsole != true else { return }
            let actions = agentActions(chat.id, endUserID: endUserID, name: name)
            Task { try? await DefaultAgent(actions: actions).messageReceived(message, in: chat) }
        } else if let name = chat.virtualAgent?.name, let found = environment.queues.virtualAgent(forMenu: chat.menuId),
            virtualScripts[found.id] == nil
        {
            let actions = agentActions(chat.id, endUserID: endUserID, name: name, kind: .virtual)
            let agent = VirtualAgent(actions: actions, configuration: found.configuration,
                                     escalate: escalation(chatID: chat.id, endUserID: endUserID))
            Task { try? await agent.messageReceived(message, in: chat) }
        }
    }

    /// A virtual agent's own escalation of a chat (no option).
    private func escalation(chatID: Int, endUserID: Int) -> @Sendable () async throws -> Void {
        { [weak self] in
            guard let self else { return }
            _ = try await self.escalate(chatID: chatID, endUserID: endUserID, option: nil)
        }
    }

    /// Leaves the virtual agent for a human (`escalateToHumanAgent`, `escalate(option:)`,
    /// or the virtual agent's own decision): the virtual agent leaves, the chat is queued
    /// again and the queue's human agent takes it. An option whose deflection channel is
    /// not `chat` ends the chat instead: the app continues on that channel.
    func escalate(chatID: Int, endUserID: Int, option: VirtualAgentConfiguration.EscalationOption?)
        async throws -> ChatResponse
    {
        guard let queued = try await environment.lifecycle.startEscalation(chatID, endUserID: endUserID, option: option) else {
            throw HTTPError.conflict("chat \(chatID) is not with a virtual agent, or its escalation has already started")
        }
        await mailboxes.removeValue(forKey: chatID)?.close()
        let leaving = agentActions(chatID, endUserID: endUserID, name: queued.virtualAgent?.name ?? "virtual agent", kind: .virtual)
        try await leaving.publishMember(.left)
        if let channel = option?.deflectionChannel, channel != "chat" {
            return try await deflect(queued, to: channel, endUserID: endUserID)
        }
        humanTakes(queued, endUserID: endUserID)
        return queued
    }

    /// Commits an option to an escalation under way (started, no human agent yet).
    func updateEscalation(chatID: Int, endUserID: Int, option: VirtualAgentConfiguration.EscalationOption)
        async throws -> ChatResponse
    {
        guard let chat = try await environment.lifecycle.updateEscalation(chatID, endUserID: endUserID, option: option) else {
            throw HTTPError.conflict("chat \(chatID) has no escalation under way (start one with escalate_to_human_agent)")
        }
        if let channel = option.deflectionChannel, channel != "chat" {
            return try await deflect(chat, to: channel, endUserID: endUserID)
        }
        return chat
    }

    /// A cold transfer by the chat's agent (`agent.transfer{ menu_id = 2 }`): the agent
    /// leaves, `cold_transfer` tells the customer where the chat goes, and the chat is
    /// queued there for that queue's agents.
    func transfer(_ actions: AgentActions, toMenu menuID: Int) async throws -> ChatResponse {
        let (current, queued) = try await environment.chats.transfer(actions.chatID, endUserID: actions.endUserID, toMenu: menuID)
        await mailboxes.removeValue(forKey: actions.chatID)?.close()
        await release(.chat(actions.chatID))
        try await actions.publishMember(.left)
        let transfer = ColdTransfer(chatId: queued.id, fromMenuId: current.menuId, toMenuId: menuID, agent: actions.member)
        try await environment.publisher.publish(endUserID: actions.endUserID, event: .coldTransfer, encoding: transfer)
        await chatQueued(queued, endUserID: actions.endUserID)
        return queued
    }

    /// The post-session phase of an ended chat is ready and its flow is a virtual agent:
    /// the agent (its script, with `session.post_session == true`, or its rules) talks on
    /// the chat until it finishes, which completes the phase.
    func startPostSession(_ chat: ChatResponse, virtualAgentID id: String, endUserID: Int, resumed: Bool = false) {
        guard let configuration = environment.configuration.virtualAgents?[id], postSessions[chat.id] == nil else { return }
        postSessions[chat.id] = id
        let actions = postSessionActions(chat, id: id, configuration: configuration, endUserID: endUserID)
        if let script = virtualScripts[id] {
            let agent = ScriptedAgent(actions: actions, script: script, mailbox: AgentMailbox(clock: environment.clock), escalate: nil,
                                      resumed: resumed)
            mailboxes[chat.id] = agent.mailbox
            Task {
                await agent.run(chat)
                _ = try? await actions.end()
                await self.scriptReturned(chat.id, agent.mailbox)
            }
        } else {
            Task { try? await PostSessionVirtualAgent(actions: actions, configuration: configuration).start() }
        }
    }

    /// The post-session phase of an ended call is ready and its flow is a virtual agent:
    /// its script runs on the ended call (`session.post_session == true`; there is no line
    /// left to talk on, so it does what it does, say `agent.wait{ seconds = 20 }` for a
    /// voice survey's length), and the phase completes when it returns; without a script,
    /// at once.
    func startPostSession(_ call: CallResponse, virtualAgentID id: String, endUserID: Int) {
        guard let configuration = environment.configuration.virtualAgents?[id] else { return }
        let actions = CallAgentActions(environment: environment, desk: self, callID: call.id, endUserID: endUserID,
                                       name: configuration.name ?? id, kind: .virtual)
        let script = virtualScripts[id]
        let clock = environment.clock
        Task {
            if let script {
                await ScriptedCallAgent(actions: actions, script: script, mailbox: AgentMailbox(clock: clock)).run(call, joined: true,
                                                                                                                   postSession: true)
            }
            do {
                try await actions.completePostSession()
            } catch {
                actions.environment.log("sandbox: the post-session phase of call \(call.id) could not complete: \(error)")
            }
        }
    }

    private func postSessionActions(_ chat: ChatResponse, id: String, configuration: VirtualAgentConfiguration, endUserID: Int) -> AgentActions {
        var actions = agentActions(chat.id, endUserID: endUserID, name: configuration.name ?? id, kind: .virtual)
        actions.isPostSession = true
        return actions
    }

    /// What an agent of the desk does to a chat.
    private func agentActions(_ chatID: Int, endUserID: Int, name: String, kind: AgentKind = .human) -> AgentActions {
        AgentActions(environment: environment, desk: self, chatID: chatID, endUserID: endUserID, name: name, kind: kind)
    }

    /// The post-session virtual agent of a chat finished.
    func postSessionEnded(_ chatID: Int) async {
        postSessions[chatID] = nil
        await mailboxes.removeValue(forKey: chatID)?.close()
    }

    /// A chat joined its queue, ended, or its customer wrote (the domain says so).
    nonisolated func sessionChanged(_ change: SessionChange) async {
        switch change {
        case .queued(let chat, let endUserID): await chatQueued(chat, endUserID: endUserID)
        case .ended(let chat): await chatEnded(chat.id)
        case .endUserWrote(let message, let chat, let endUserID): await messageReceived(message, in: chat, endUserID: endUserID)
        case .callWaiting(let call, let endUserID): await callWaiting(call, endUserID: endUserID)
        case .callEnded(let call): await callEnded(call)
        }
    }

    /// A call waits: the queue's voice virtual agent answers it first, unless it was
    /// escalated; otherwise the least busy human agent of its queue with room takes it.
    private func callWaiting(_ call: CallResponse, endUserID: Int) async {
        if let found = environment.queues.voiceVirtualAgent(forMenu: call.menuId),
            await virtualAgentTakes(call, endUserID: endUserID, id: found.id, name: found.configuration.name ?? found.id)
        {
            return
        }
        await humanTakes(call, endUserID: endUserID)
    }

    /// The queue's voice virtual agent answers the call and runs its script; without one
    /// it stays on the line (a call carries no messages for keyword rules) until the caller
    /// escalates or hangs up. False when the call was not there to answer (escalated).
    private func virtualAgentTakes(_ call: CallResponse, endUserID: Int, id: String, name: String) async -> Bool {
        let actions = CallAgentActions(environment: environment, desk: self, callID: call.id, endUserID: endUserID, name: name,
                                       kind: .virtual)
        do {
            guard try await actions.join() else { return false }
        } catch {
            environment.log("sandbox: virtual agent \(name) could not answer call \(call.id): \(error)")
            return false
        }
        if let script = virtualScripts[id] {
            let agent = ScriptedCallAgent(actions: actions, script: script, mailbox: AgentMailbox(clock: environment.clock))
            callMailboxes[call.id] = agent.mailbox
            Task {
                await agent.run(call, joined: true)
                await self.callScriptReturned(call.id, agent.mailbox)
            }
        }
        return true
    }

    /// Leaves a call's virtual agent for a human (`escalateToHumanAgent`, or the virtual
    /// agent's `agent.escalate()`), when ``Calls/escalationRefusal(_:)`` allows it: the
    /// virtual agent leaves (its script stops waiting) and the call waits for the queue's
    /// human agents.
    func escalate(callID: Int, endUserID: Int) async throws -> CallResponse {
        let calls = environment.calls
        let call = try await calls.call(callID, endUserID: endUserID)
        if let refusal = try calls.escalationRefusal(call) { throw refusal }
        guard let waiting = try await calls.lifecycle.escalate(callID, endUserID: endUserID) else {
            throw HTTPError.conflict("call \(callID) is no longer with a virtual agent, or its escalation has already started")
        }
        await callMailboxes.removeValue(forKey: callID)?.close()
        if let name = call.virtualAgent?.name {
            try await CallAgentActions(environment: environment, desk: self, callID: callID, endUserID: endUserID, name: name,
                                       kind: .virtual).publishParticipant(.left)
        }
        await refreshWaitTimes(menuID: waiting.menuId)
        await humanTakes(waiting, endUserID: endUserID)
        return waiting
    }

    /// The call ended: a script waiting on it stops waiting, its agent takes the next
    /// session waiting, and the calls still waiting on its queue hear their new estimates.
    private func callEnded(_ call: CallResponse) async {
        await environment.smartActions.ended(CommunicationRouter(id: call.id, type: .call))
        await callMailboxes.removeValue(forKey: call.id)?.close()
        await release(.call(call.id))
        await refreshWaitTimes(menuID: call.menuId)
    }

    /// The calls waiting on a queue hear their new estimates (``Calls/refreshWaitTimes(menuID:)``).
    private func refreshWaitTimes(menuID: Int) async {
        do {
            try await environment.calls.refreshWaitTimes(menuID: menuID)
        } catch {
            environment.log("sandbox: the wait estimates of queue \(menuID) could not be updated: \(error)")
        }
    }

    /// A cold transfer of a call by its agent (`agent.transfer{ menu_id = 2 }`): the agent
    /// leaves, and the call waits on the other queue for its agents.
    func transfer(_ actions: CallAgentActions, toMenu menuID: Int) async throws -> CallResponse {
        _ = try environment.queues.menu(menuID)
        let before = try await environment.calls.call(actions.callID, endUserID: actions.endUserID)
        guard let waiting = try await environment.calls.lifecycle.transfer(actions.callID, endUserID: actions.endUserID, toMenu: menuID)
        else { throw HTTPError.conflict("call \(actions.callID) is not with an agent: only a call in progress can be transferred") }
        await callMailboxes.removeValue(forKey: actions.callID)?.close()
        await release(.call(actions.callID))
        try await actions.publishParticipant(.left)
        await refreshWaitTimes(menuID: before.menuId)
        await refreshWaitTimes(menuID: menuID)
        await humanTakes(waiting, endUserID: actions.endUserID)
        return waiting
    }

    /// The least busy human agent of the call's queue with room takes it (its script, or
    /// the default behaviour); without one the call waits.
    private func humanTakes(_ call: CallResponse, endUserID: Int) async {
        guard holder(of: .call(call.id)) == nil, let name = leastBusyAgent(onMenu: call.menuId) else { return }
        load[name, default: []].insert(.call(call.id))
        takenAt[.call(call.id)] = environment.clock.now()
        let actions = CallAgentActions(environment: environment, desk: self, callID: call.id, endUserID: endUserID, name: name)
        if let script = scripts[name] {
            let agent = ScriptedCallAgent(actions: actions, script: script, mailbox: AgentMailbox(clock: environment.clock))
            callMailboxes[call.id] = agent.mailbox
            Task {
                await agent.run(call)
                await self.callScriptReturned(call.id, agent.mailbox)
            }
        } else {
            Task { try? await DefaultAgent.callWaiting(actions) }
        }
    }

    private func callScriptReturned(_ callID: Int, _ mailbox: AgentMailbox) async {
        guard callMailboxes[callID] === mailbox else { return }
        callMailboxes[callID] = nil
        await mailbox.close()
    }

    /// The chat ended: a script waiting for a message gets nil, and its agent takes the
    /// oldest chat waiting for it, if any.
    private func chatEnded(_ chatID: Int) async {
        await environment.smartActions.ended(CommunicationRouter(id: chatID, type: .chat))
        await environment.forms.chatEnded(chatID)
        await environment.screenShares.chatEnded(chatID)
        await mailboxes.removeValue(forKey: chatID)?.close()
        await release(.chat(chatID))
    }

    /// The agent holding `item` lets it go and takes the oldest chat or call waiting on
    /// its queues, other than `item` (an agent past its shift's end takes none: it logs out
    /// once its last session ends).
    private func release(_ item: WorkItem) async {
        guard let name = holder(of: item), let agent = agent(named: name) else { return }
        load[name]?.remove(item)
        if let taken = takenAt.removeValue(forKey: item) {
            let now = environment.clock.now()
            let channel: SessionChannel = if case .call = item { .voiceCall } else { .chat }
            environment.queues.estimator.handleTimes.record(channel, seconds: now.timeIntervalSince(taken), endedAt: now)
        }
        releases += 1
        lastReleased[name] = releases
        await offerOldestWaiting(onMenus: agent.menus, besides: item)   // a transferred session is the next queue's
    }

    /// The agent's shift started: it takes the oldest chats and calls waiting on its queues
    /// while it has room.
    func shiftStarted(_ name: String) async {
        guard let agent = agent(named: name), roster.isOnShift(name) else { return }
        while await offerOldestWaiting(onMenus: agent.menus) {}
    }

    private func agent(named name: String) -> AgentConfiguration? {
        environment.configuration.agents?.first { $0.name == name }
    }

    /// Offers the oldest chat or call waiting on `menus` (no agent's, and not `excluded`)
    /// to the agents; true when one took it.
    @discardableResult
    private func offerOldestWaiting(onMenus menus: [Int], besides excluded: WorkItem? = nil) async -> Bool {
        let held = Set(load.values.joined()).union([excluded].compactMap { $0 })
        let chat = try? await environment.chats.waiting(onMenus: menus).first(where: { !held.contains(.chat($0.chat.id)) })
        let call = try? await environment.calls.waiting(onMenus: menus).first(where: { !held.contains(.call($0.call.id)) })
        if let call, chat.map({ call.call.createdAt < $0.chat.createdAt }) ?? true {
            await humanTakes(call.call, endUserID: call.endUserID)
            return holder(of: .call(call.call.id)) != nil
        } else if let chat {
            humanTakes(chat.chat, endUserID: chat.endUserID)
            return holder(of: .chat(chat.chat.id)) != nil
        }
        return false
    }

    /// A person at the console takes a waiting chat as the console agent `name`
    /// (``AgentConfiguration/console``): assigned, the agent joins, active, as any human
    /// agent's chat. A `conflict` when the agent is not a console agent of the chat's queue
    /// with room, or the chat is not waiting for an agent.
    func consoleTakes(chatID: Int, endUserID: Int, agent name: String) async throws -> AgentActions {
        let agent = try consoleAgent(name)
        guard let chat = try await environment.chats.chat(chatID, endUserID: endUserID), chat.status == .queued,
              holder(of: .chat(chatID)) == nil, chat.agent == nil   // an escalated chat keeps its virtual agent's name
        else { throw HTTPError.conflict("chat \(chatID) is not waiting for an agent") }
        try checkRoom(of: agent, forMenu: chat.menuId)
        load[name, default: []].insert(.chat(chatID))
        takenAt[.chat(chatID)] = environment.clock.now()
        let actions = agentActions(chatID, endUserID: endUserID, name: name)
        guard try await actions.join() else {
            load[name]?.remove(.chat(chatID))
            takenAt[.chat(chatID)] = nil
            throw HTTPError.conflict("chat \(chatID) is no longer waiting")
        }
        return actions
    }

    /// A person at the console answers a waiting call as the console agent `name`:
    /// `connecting` with the agent, it joins, `connected`, as any human agent's call. A
    /// `conflict` when the agent cannot take it (as ``consoleTakes(chatID:endUserID:agent:)``)
    /// or the call is not waiting for an agent.
    func consoleAnswers(callID: Int, endUserID: Int, agent name: String) async throws -> CallAgentActions {
        let agent = try consoleAgent(name)
        let call = try await environment.calls.call(callID, endUserID: endUserID)
        guard call.status == .waiting, holder(of: .call(callID)) == nil, call.agent == nil else {
            throw HTTPError.conflict("call \(callID) is not waiting for an agent")
        }
        try checkRoom(of: agent, forMenu: call.menuId)
        load[name, default: []].insert(.call(callID))
        takenAt[.call(callID)] = environment.clock.now()
        let actions = CallAgentActions(environment: environment, desk: self, callID: callID, endUserID: endUserID, name: name)
        guard try await actions.join() else {
            load[name]?.remove(.call(callID))
            takenAt[.call(callID)] = nil
            throw HTTPError.conflict("call \(callID) is no longer waiting")
        }
        return actions
    }

    /// The actions of the console agent `name` on a call it holds, or a `conflict`.
    func consoleCallActions(callID: Int, endUserID: Int, agent name: String) throws -> CallAgentActions {
        guard agent(named: name)?.isPlayedAtTheConsole == true, holder(of: .call(callID)) == name else {
            throw HTTPError.conflict("call \(callID) is not \(name)'s")
        }
        return CallAgentActions(environment: environment, desk: self, callID: callID, endUserID: endUserID, name: name)
    }

    /// The console agent `name`, or a `conflict`.
    private func consoleAgent(_ name: String) throws -> AgentConfiguration {
        guard let agent = agent(named: name), agent.isPlayedAtTheConsole else {
            throw HTTPError.conflict("\(name) is not played at the console (console = true in the configuration)")
        }
        return agent
    }

    /// A `conflict` unless `agent` serves the queue, is on shift and has room for one more session.
    private func checkRoom(of agent: AgentConfiguration, forMenu menuID: Int) throws {
        guard agent.menus.contains(menuID) else { throw HTTPError.conflict("\(agent.name) does not serve queue \(menuID)") }
        guard roster.isOnShift(agent.name) else { throw HTTPError.conflict("\(agent.name) is not on shift") }
        guard (load[agent.name]?.count ?? 0) < (agent.maxChats ?? .max) else {
            throw HTTPError.conflict("\(agent.name) has \(agent.maxChats ?? 0) sessions already (max_chats)")
        }
    }

    /// The actions of the console agent `name` on a chat it holds, or a `conflict`.
    func consoleActions(chatID: Int, endUserID: Int, agent name: String) throws -> AgentActions {
        guard agent(named: name)?.isPlayedAtTheConsole == true, holder(of: .chat(chatID)) == name else {
            throw HTTPError.conflict("chat \(chatID) is not \(name)'s")
        }
        return agentActions(chatID, endUserID: endUserID, name: name)
    }

    /// What each human agent holds now: chats and calls by agent name.
    func holdings() -> [String: Set<WorkItem>] { load }

    /// The human agent who has the chat, by the desk's own record; nil while it waits.
    /// The desk decides while the request that queued the chat is handled, so a chat
    /// without one when that request has returned waits until an agent gets room.
    func humanAgent(of chatID: Int) -> String? {
        holder(of: .chat(chatID))
    }

    /// A queue's human agents on shift (`logged_in`) and those of them with room for
    /// another chat or call (`available`): what the Apps API's wait times report.
    func staffing(ofMenu menuID: Int) -> (loggedIn: Int, available: Int) {
        let onShift = (environment.configuration.agents ?? []).filter { $0.menus.contains(menuID) && roster.isOnShift($0.name) }
        return (onShift.count, onShift.filter { (load[$0.name]?.count ?? 0) < ($0.maxChats ?? .max) }.count)
    }

    /// How many human agents have at least one chat or call.
    func busyAgents() -> Int {
        load.values.filter { !$0.isEmpty }.count
    }

    /// The human agent who has the chat or call, by the desk's own record.
    func holder(of item: WorkItem) -> String? {
        load.first { $0.value.contains(item) }?.key
    }

    /// The least busy human agent of a queue on shift with room (`max_chats` work items),
    /// if any; between equals, the one idle the longest (then the first configured): the
    /// same events give the same choices, so a simulation replays them.
    private func leastBusyAgent(onMenu menuID: Int) -> String? {
        // A console agent takes what a person at the console chooses, not what is offered.
        let candidates = (environment.configuration.agents ?? []).filter { agent in
            agent.menus.contains(menuID) && (load[agent.name]?.count ?? 0) < (agent.maxChats ?? .max)
                && roster.isOnShift(agent.name) && !agent.isPlayedAtTheConsole
        }
        return candidates.min(by: { first, second in
            (load[first.name]?.count ?? 0, lastReleased[first.name] ?? 0)
                < (load[second.name]?.count ?? 0, lastReleased[second.name] ?? 0)
        })?.name
    }

    /// The least busy human agent of the chat's queue with room takes it; without one the
    /// chat stays queued.
    private func humanTakes(_ chat: ChatResponse, endUserID: Int, resumed: Bool = false) {
        // A chat can be offered twice (queued, and picked up by an agent that just got
        // room): one agent takes it, once.
        guard humanAgent(of: chat.id) == nil, let name = leastBusyAgent(onMenu: chat.menuId) else { return }
        load[name, default: []].insert(.chat(chat.id))
        takenAt[.chat(chat.id)] = environment.clock.now()
        let actions = agentActions(chat.id, endUserID: endUserID, name: name)
        if let script = scripts[name] {
            run(ScriptedAgent(actions: actions, script: script, mailbox: AgentMailbox(clock: environment.clock), escalate: nil,
                              resumed: resumed), chat)
        } else {
            Task { try? await DefaultAgent(actions: actions).chatQueued() }
        }
    }

    private func run(_ agent: ScriptedAgent, _ chat: ChatResponse) {
        // A script whose chat moves to another agent stops waiting: an orphaned script
        // would hold its state until its wait timed out.
        if let previous = mailboxes.updateValue(agent.mailbox, forKey: chat.id) { Task { await previous.close() } }
        Task {
            await agent.run(chat)
            await self.scriptReturned(chat.id, agent.mailbox)
        }
    }

    /// Forgets a script's mailbox, unless a later agent's has replaced it.
    private func scriptReturned(_ chatID: Int, _ mailbox: AgentMailbox) async {
        guard mailboxes[chatID] === mailbox else { return }
        mailboxes[chatID] = nil
        await mailbox.close()
    }

    /// Ends the chat with a notification naming the channel the conversation moves to.
    private func deflect(_ chat: ChatResponse, to channel: String, endUserID: Int) async throws
        -> ChatResponse
    {
        try await environment.conversation.post(
            .notification("The conversation continues by \(channel.replacingOccurrences(of: "_", with: " ")).", event: "escalated"),
            in: chat.id, endUserID: endUserID)
        return try await environment.lifecycle.end(chat.id, endUserID: endUserID, by: .agent) ?? chat
    }
}

/// One conversation an agent works on, the unit of their load: a chat or a call, counted
/// together against `max_chats`.
enum WorkItem: Hashable, Sendable {
    case chat(Int)
    case call(Int)
}
