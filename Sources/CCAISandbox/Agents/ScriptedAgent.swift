import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// A sandbox agent driven by its Lua script (docs/sdk-and-sandbox.md, agent scripts). The agent takes the
/// chat, then the script runs as `function(agent, session)` in a fresh confined state:
/// `agent.send(text)`, `agent.wait_for_message{ timeout = 60 }`,
/// `agent.request_smart_action{ type = "photo" }`, `agent.send_file{ name, mime_type, data }`,
/// `agent.send_form{ id = 10 }`, `agent.send_web_form{ external_form_id = "form123" }`,
/// `agent.request_screen_share{ remote_control = true }`,
/// `agent.transfer{ menu_id = 2 }`, `agent.end_session()` and, for a virtual agent,
/// `agent.escalate()` act on the chat; `session` is the chat as the wire API shows it, with
/// its `custom_data` (without the items marked `invisible_to_agent`), the order the
/// adapter lists it in (`display_order_in_adapter`), `is_verifiable`, its
/// `smart_actions` so far (the pre-session ones with their results), its last 500 `messages`
/// (as the agent sees them: redacted where the queue redacts), and `resumed` (true when
/// the chat was under way as the sandbox restarted: the script starts anew on it). A
/// script that fails
/// is logged; the chat stays as the script left it.
///
/// ```lua
/// return function(agent, session)
///   agent.send("Hi, I'm Ava")
///   local message = agent.wait_for_message{ timeout = 60 }
///   if message then agent.send("You said: " .. message.text) end
///   agent.end_session()
/// end
/// ```
///
/// A class, so that the functions of the `agent` table all hold one reference to it.
public final class ScriptedAgent: Sendable {
    let actions: AgentActions
    let script: AgentScript
    let mailbox: AgentMailbox
    /// For a virtual agent: hands the chat to a human (`agent.escalate()`).
    let escalate: (@Sendable () async throws -> Void)?
    /// The chat was under way when the sandbox restarted (`session.resumed`).
    let resumed: Bool

    init(actions: AgentActions, script: AgentScript, mailbox: AgentMailbox, escalate: (@Sendable () async throws -> Void)?,
         resumed: Bool = false) {
        self.actions = actions
        self.script = script
        self.mailbox = mailbox
        self.escalate = escalate
        self.resumed = resumed
    }

    /// Budgets of one session's state: each run between two waits is short.
    static let limits = LuaLimits(memoryBytes: 16 << 20, instructions: 50_000_000, seconds: 5)

    /// Runs the script for `chat`, with what its session carries (``ChatSessionData``).
    /// This frame lives as long as the script: the session is built in one of its own
    /// (``session(of:)``), whose temporaries are gone before the script starts.
    @inline(never)
    func run(_ chat: ChatResponse) async {
        let label = "agent \(actions.name) (\(script.path)), chat \(chat.id)"
        do {
            guard try await actions.join() else { return }
            let session = try await session(of: chat)
            try await Self.runScript(script, label: label, environment: actions.environment, agent: makeModule(), session: session)
        } catch {
            actions.environment.log("sandbox: \(label) failed: \(error)")
        }
    }

    /// The `session` argument of the script: the chat as the wire API shows it, with what
    /// the agent may see of its data, smart actions and messages.
    @inline(never)
    private func session(of chat: ChatResponse) async throws -> LuaTable {
        guard case .table(var session) = try LuaEncoder().encode(chat) else {
            throw LuaScriptError(kind: .runtime, message: "the chat could not be given to the script")
        }
        let data = try await actions.environment.chats.sessionData(chat.id)
        session.fields["channel"] = .string("chat")
        session.fields["custom_data"] = try LuaEncoder().encode(Self.agentView(of: data.customData))
        session.fields["display_order_in_adapter"] = try LuaEncoder().encode(data.adapterOrder(agentView: true))
        session.fields["is_verifiable"] = .boolean(data.isVerifiable)
        session.fields["smart_actions"] = try LuaEncoder().encode(try await actions.smartActions())
        session.fields["post_session"] = .boolean(actions.isPostSession)
        session.fields["resumed"] = .boolean(resumed)
        session.fields["messages"] = try LuaEncoder().encode(try await actions.history(of: chat))
        var crm = LuaTable()
        for (name, flag) in ReservedCRMKey.flags(in: data.customData["signed"] ?? [:]) { crm[name] = .boolean(flag) }
        session.fields["crm"] = .table(crm)
        return session
    }

    /// The threads agent scripts run on, apart from the customers' scripts and plugins: a
    /// script of theirs that spins until its budget stops it holds a thread of the
    /// customers' for that long, never the agents', who keep answering.
    static let threads = LuaThreads(count: 2, name: "agent")

    /// Runs `script` as `function(agent, session)` in a fresh confined state, with
    /// `agent` as the agent table; its `print`s go to the environment's log under `label`.
    /// Its `os.time()` reads the sandbox's clock; its budget, the real time.
    static func runScript(_ script: AgentScript, label: String, environment: AgentEnvironment, agent: LuaModule,
                          session: LuaTable) async throws {
        let log = environment.log
        let state = try LuaState(limits: limits, confinement: LuaConfinement(print: { log("[\(label)] \($0)") }),
                                 clock: environment.clock, budgetClock: SystemClock(), threads: threads)
        do {
            try await state.run(chunk: script.chunk, keepingResultAs: "script")
            guard await state.inspect(kept: "script") == .string("function") else {
                throw LuaScriptError(kind: .runtime, message: "the script must return function(agent, session)")
            }
            await state.withContext { $0.keep("agent", $0.makeTable(agent)) }
            _ = try await state.call(kept: "script", path: [], passing: [.kept("agent"), .value(.table(session))])
        } catch {
            await state.close()
            throw error
        }
        await state.close()
    }

    /// Custom data as agents see it: items marked `invisible_to_agent` are left out (they
    /// stay stored, for routing and analytics).
    static func agentView(of customData: JSONValue) -> JSONValue {
        guard case .object(let groups) = customData else { return customData }
        return .object(groups.mapValues { group in
            guard case .object(let items) = group else { return group }
            return .object(items.filter { _, item in item["invisible_to_agent"]?.boolValue != true })
        })
    }

    /// Runs `body`; a refusal of the sandbox (`HTTPError`) becomes a Lua error with the
    /// same code and message.
    static func refusalsAsLuaErrors<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as HTTPError {
            throw LuaErrorValue(code: error.code, message: error.message)
        }
    }

    /// `agent.transfer{ menu_id = 2 }`, on a chat or a call: `move` takes the session to
    /// that queue, its refusals raised as the script's errors.
    static func transferFunction(_ move: @escaping @Sendable (Int) async throws -> Void) -> LuaFunctionBody {
        { call in
            guard let menuID = try call.options(1, "options").integer("menu_id") else {
                throw call.argumentError(1, "options.menu_id", "an integer expected")
            }
            return try call.suspend {
                try await refusalsAsLuaErrors { try await move(Int(menuID)) }
                return []
            }
        }
    }

    /// `options.timeout`: positive seconds, 300 by default.
    private static func timeout(_ call: LuaCall, _ options: LuaOptions) throws -> TimeInterval {
        let timeout = try options.number("timeout") ?? 300
        guard timeout > 0 else { throw call.argumentError(1, "options.timeout", "a positive number of seconds expected") }
        return timeout
    }

    /// Form answers as `{ [question_id] = value }`.
    private static func answers(_ answers: [SubmitCustomFormRequest.Answer]) -> LuaValue {
        var table = LuaTable()
        for answer in answers { table[.integer(Int64(answer.questionId))] = .string(answer.value) }
        return .table(table)
    }

    /// The functions of the `agent` table, each with its signature and body, in the order
    /// a script meets them (`escalate` is only there for virtual agents).
    static let functions: [AgentFunction<ScriptedAgent>] = [
        AgentFunction("send", LuaSignature("Sends a text message to the customer.", parameters: ["text: string"])) { agent in
            { call in
                let text = try call.string(1, "text")
                guard !text.isEmpty else { throw call.argumentError(1, "text", "a non-empty string expected") }
                return try call.suspend {
                    guard try await agent.actions.isChatInProgress() else {
                        let ended = HTTPError.chatEnded(agent.actions.chatID)
                        throw LuaErrorValue(code: ended.code, message: ended.message)
                    }
                    try await agent.actions.say(text)
                    return []
                }
            }
        },
        AgentFunction("wait_for_message", LuaSignature(
            "Waits for the customer's next message (redacted when the queue redacts); nil on timeout or when the chat ends.",
            parameters: ["options: { timeout: number? }?"], returns: ["ccai.ChatMessage?"])) { agent in
            { call in
                let timeout = try call.options(1, "options").number("timeout")
                if let timeout, !(timeout > 0) {
                    throw call.argumentError(1, "options.timeout", "a positive number of seconds expected")
                }
                return try call.suspend {
                    guard let message = await agent.mailbox.next(timeout: timeout ?? 60) else { return [.nil] }
                    return [try LuaEncoder().encode(message)]
                }
            }
        },
        AgentFunction("request_smart_action", LuaSignature(
            "Asks the customer for a smart action and waits for the answer: the action (status finished or failed, or as it "
                + "stands after the timeout) with its result and media; nil when the chat ends first.",
            parameters: ["options: { type: \"photo\"|\"video\"|\"screenshot\"|\"text\"|\"verification\"|\"screen_share\", timeout: number? }"],
            returns: ["ccai.SmartAction?"])) { agent in
            { call in
                let (type, timeout) = try smartActionRequest(call, types: SmartActionType.requestable)
                return try call.suspend {
                    guard let (action, media) = try await ScriptedAgent.refusalsAsLuaErrors({ try await agent.actions.requestSmartAction(type, timeout: timeout) })
                    else { return [.nil] }
                    guard case .table(var table) = try LuaEncoder().encode(action) else { return [.nil] }
                    table["media"] = try LuaEncoder().encode(media)
                    return [.table(table)]
                }
            }
        },
        AgentFunction("send_file", LuaSignature("Sends a file (one of the 19 agent file types) to the customer.",
                                   parameters: ["file: { name: string, mime_type: string, data: string }"],
                                   returns: ["ccai.ChatMessage"])) { agent in
            { call in
                let options = try call.options(1, "file")
                guard let name = try options.string("name"), !name.isEmpty else {
                    throw call.argumentError(1, "file.name", "a file name expected")
                }
                guard let mimeType = try options.string("mime_type") else {
                    throw call.argumentError(1, "file.mime_type", "a MIME type such as 'application/pdf' expected")
                }
                guard let data = try options.data("data") else { throw call.argumentError(1, "file.data", "the file's bytes (a string) expected") }
                return try call.suspend {
                    let message = try await ScriptedAgent.refusalsAsLuaErrors { try await agent.actions.sendFile(name: name, mimeType: mimeType, data: data) }
                    return [try LuaEncoder().encode(message)]
                }
            }
        },
        AgentFunction("send_form", LuaSignature(
            "Sends a custom form and waits for the answers: { [question_id] = value }; nil on timeout or when the chat ends.",
            parameters: ["options: { id: integer, timeout: number? }"], returns: ["table<integer, string>?"])) { agent in
            { call in
                let options = try call.options(1, "options")
                guard let id = try options.integer("id") else { throw call.argumentError(1, "options.id", "a custom form id expected") }
                guard let form = agent.actions.environment.configuration.customForm(Int(id)) else {
                    throw call.argumentError(1, "options.id", "one of the configured custom forms expected, got \(id)")
                }
                let timeout = try ScriptedAgent.timeout(call, options)
                return try call.suspend {
                    guard let outcome = try await ScriptedAgent.refusalsAsLuaErrors({
                        try await agent.actions.sendForm(.custom(form), timeout: timeout)
                    }) else { return [.nil] }
                    return [ScriptedAgent.answers(outcome.answers)]
                }
            }
        },
        AgentFunction("send_web_form", LuaSignature(
            "Sends a web form and waits for its form-complete event: { status = \"completed\"|\"failed\", answers, message }; "
                + "nil on timeout or when the chat ends.",
            parameters: ["options: { external_form_id: string, timeout: number? }"], returns: ["table?"])) { agent in
            { call in
                let options = try call.options(1, "options")
                guard let externalID = try options.string("external_form_id"), let form = agent.actions.environment.configuration.webForm(externalID)
                else {
                    throw call.argumentError(1, "options.external_form_id", "one of the configured web forms' external_form_id expected")
                }
                let timeout = try ScriptedAgent.timeout(call, options)
                return try call.suspend {
                    guard let outcome = try await ScriptedAgent.refusalsAsLuaErrors({
                        try await agent.actions.sendForm(.web(form), timeout: timeout)
                    }) else { return [.nil] }
                    var table = LuaTable()
                    table["status"] = .string(outcome.status)
                    table["answers"] = ScriptedAgent.answers(outcome.answers)
                    if let message = outcome.message { table["message"] = .string(message) }
                    return [.table(table)]
                }
            }
        },
        AgentFunction("request_screen_share", LuaSignature(
            "Asks the customer to share their screen: joins the session their app creates and waits until they start it (or "
                + "decline), then, with remote_control = true, for their answer to remote control. The session ({ id, code, "
                + "state, remote_control, ... }); nil when no session came before the timeout, at once when the chat's app "
                + "cannot share (is_screen_shareable).",
            parameters: ["options: { remote_control: boolean?, timeout: number? }?"], returns: ["table?"])) { agent in
            { call in
                let options = try call.options(1, "options")
                let remoteControl = try options.boolean("remote_control") ?? false
                let timeout = try options.number("timeout") ?? 120
                guard timeout > 0 else { throw call.argumentError(1, "options.timeout", "a positive number of seconds expected") }
                return try call.suspend {
                    guard let session = try await ScriptedAgent.refusalsAsLuaErrors({
                        try await agent.actions.requestScreenShare(remoteControl: remoteControl, timeout: timeout)
                    }) else { return [.nil] }
                    return [try LuaEncoder().encode(session)]
                }
            }
        },
        AgentFunction("transfer", LuaSignature("Moves the chat to another queue (a cold transfer); the script's waits end.",
                                  parameters: ["options: { menu_id: integer }"])) { agent in
            transferFunction { _ = try await agent.actions.transfer(toMenu: $0) }
        },
        AgentFunction("escalate", LuaSignature(
            "Hands the chat (or, for a voice virtual agent, the call, which it returns) to a human agent: virtual agents "
                + "only; the script's waits end.")) { agent in
            agent.escalate.map { escalate in
                { call in
                    try call.suspend {
                        try await ScriptedAgent.refusalsAsLuaErrors { try await escalate() }
                        return []
                    }
                }
            }
        },
        AgentFunction("end_session", LuaSignature(
            "Ends the chat (a post-session virtual agent: completes the post-session phase); false when it had already ended.",
            returns: ["boolean"])) { agent in
            { call in
                try call.suspend {
                    [.boolean(try await agent.actions.end())]
                }
            }
        },
    ]

    /// The `{ type, timeout }` of `agent.request_smart_action`: a type among `types`, and
    /// seconds to wait (120 by default).
    static func smartActionRequest(_ call: LuaCall, types: [SmartActionType]) throws -> (SmartActionType, TimeInterval) {
        let options = try call.options(1, "options")
        let typeName = try options.string("type")
        guard let type = typeName.flatMap(SmartActionType.init(rawValue:)), types.contains(type) else {
            throw call.argumentError(1, "options.type", types.map { "'\($0.rawValue)'" }.joined(separator: ", ") + " expected, got "
                                        + (typeName.map { "'\($0)'" } ?? "nil"))
        }
        let timeout = try options.number("timeout") ?? 120
        guard timeout > 0 else { throw call.argumentError(1, "options.timeout", "a positive number of seconds expected") }
        return (type, timeout)
    }

    /// The `agent` table's functions for editor stubs (`ccai types`): the signatures
    /// without bodies, a chat's and then those only a call has (``ScriptedCallAgent``).
    public static var stubModule: LuaModule {
        var agent = LuaModule(name: "ccai.Agent")
        for function in functions { agent.function(function.name, function.signature) { _ in .none } }
        for function in ScriptedCallAgent.functions where !functions.contains(where: { $0.name == function.name }) {
            agent.function(function.name, function.signature) { _ in .none }
        }
        return agent
    }

    /// The `agent` table a script receives.
    private func makeModule() -> LuaModule {
        var module = LuaModule(name: "agent")
        for function in Self.functions {
            if let body = function.body(self) { module.function(function.name, function.signature, body) }
        }
        return module
    }
}

/// One function of an agent script's `agent` table: its name and signature, said once,
/// with its body for a given agent, on a chat (``ScriptedAgent``) or a call
/// (``ScriptedCallAgent``); nil where the agent does not offer it.
struct AgentFunction<Agent: Sendable>: Sendable {
    let name: String
    let signature: LuaSignature
    let body: @Sendable (Agent) -> LuaFunctionBody?

    init(_ name: String, _ signature: LuaSignature, body: @escaping @Sendable (Agent) -> LuaFunctionBody?) {
        self.name = name
        self.signature = signature
        self.body = body
    }
}
