import CCAIWire
import Foundation
import LuaRuntime

/// A sandbox agent's script on a voice call: the same `function(agent, session)` an agent
/// runs for its chats (docs/sdk-and-sandbox.md, agent scripts), called once the agent has
/// taken the call (`connected`), with `session.channel == "voice_call"`. A call has no
/// messages: its `agent` table offers `agent.hold()`, `agent.resume()`,
/// `agent.wait{ seconds = 30 }` (the conversation goes on; false when the call ended
/// meanwhile), `agent.request_smart_action{ type = "verification" }` (text, a verification
/// or a screen share: a call carries no files), `agent.transfer{ menu_id = 2 }`,
/// `agent.end_session()`, and for the queue's voice virtual agent `agent.escalate()` (to a
/// human); `session` is the
/// call as the wire API shows it, with its `custom_data` (without the items marked
/// `invisible_to_agent`). A script that fails is logged; the call stays as the script left it.
///
/// ```lua
/// return function(agent, session)
///   if session.channel ~= "voice_call" then return end
///   agent.wait{ seconds = 20 }
///   agent.hold(); agent.wait{ seconds = 5 }; agent.resume()
///   agent.end_session()
/// end
/// ```
final class ScriptedCallAgent: Sendable {
    let actions: CallAgentActions
    let script: AgentScript
    /// Never gets a message: its waits end at their time, or at once when the call ends.
    let mailbox: AgentMailbox

    init(actions: CallAgentActions, script: AgentScript, mailbox: AgentMailbox) {
        self.actions = actions
        self.script = script
        self.mailbox = mailbox
    }

    /// Takes the call (unless the desk did: `joined`) and runs the script on it; a
    /// post-session virtual agent's gets `session.post_session == true`.
    func run(_ call: CallResponse, joined: Bool = false, postSession: Bool = false) async {
        let label = "\(actions.kind == .virtual ? "virtual agent" : "agent") \(actions.name) (\(script.path)), call \(call.id)"
        let environment = actions.environment
        do {
            if !joined { guard try await actions.join() else { return } }
            let connected = try await environment.calls.call(call.id, endUserID: actions.endUserID)
            guard case .table(var session) = try LuaEncoder().encode(connected) else {
                throw LuaScriptError(kind: .runtime, message: "the call could not be given to the script")
            }
            session.fields["channel"] = .string("voice_call")
            let customData = try await environment.calls.customData(call.id)
            session.fields["custom_data"] = try LuaEncoder().encode(ScriptedAgent.agentView(of: customData))
            session.fields["resumed"] = .boolean(false)
            session.fields["post_session"] = .boolean(postSession)
            try await ScriptedAgent.runScript(script, label: label, environment: environment, agent: makeModule(), session: session)
        } catch {
            environment.log("sandbox: \(label) failed: \(error)")
        }
    }

    /// The functions of the `agent` table on a call, each with its signature and body.
    static let functions: [AgentFunction<ScriptedCallAgent>] = [
        AgentFunction("hold", LuaSignature("On a call: puts the connected call on hold (a conflict otherwise).", returns: ["ccai.Call"])) { agent in
            { call in try call.suspend { [try LuaEncoder().encode(try await ScriptedAgent.refusalsAsLuaErrors { try await agent.actions.hold() })] } }
        },
        AgentFunction("resume", LuaSignature("On a call: takes the held call off hold (a conflict otherwise).", returns: ["ccai.Call"])) { agent in
            { call in try call.suspend { [try LuaEncoder().encode(try await ScriptedAgent.refusalsAsLuaErrors { try await agent.actions.resume() })] } }
        },
        AgentFunction("wait", LuaSignature("On a call: lets the conversation go on for seconds; false when the call ended meanwhile.",
                              parameters: ["options: { seconds: number }"], returns: ["boolean"])) { agent in
            { call in
                let seconds = try call.options(1, "options").number("seconds")
                guard let seconds, seconds > 0, seconds.isFinite else {
                    throw call.argumentError(1, "options.seconds", "a positive number of seconds expected")
                }
                return try call.suspend {
                    _ = await agent.mailbox.next(timeout: seconds)
                    return [.boolean(try await agent.actions.isInProgress())]
                }
            }
        },
        AgentFunction("request_smart_action", LuaSignature(
            "On a call: asks the caller for a smart action (text, verification or screen_share: a call carries no files) and "
                + "waits for the answer: the action (finished or failed, or as it stands after the timeout); nil when the call ends first.",
            parameters: ["options: { type: \"text\"|\"verification\"|\"screen_share\", timeout: number? }"],
            returns: ["ccai.SmartAction?"])) { agent in
            { call in
                let (type, timeout) = try ScriptedAgent.smartActionRequest(call, types: SmartActionType.requestable.filter(SmartActions.callTypes.contains))
                return try call.suspend {
                    let action = try await ScriptedAgent.refusalsAsLuaErrors { try await agent.actions.requestSmartAction(type, timeout: timeout) }
                    return [try action.map { try LuaEncoder().encode($0) } ?? .nil]
                }
            }
        },
        AgentFunction("transfer", LuaSignature("Moves the call to another queue (a cold transfer); the script's waits end.",
                                  parameters: ["options: { menu_id: integer }"])) { agent in
            ScriptedAgent.transferFunction { _ = try await agent.actions.transfer(toMenu: $0) }
        },
        AgentFunction("escalate", LuaSignature(
            "On a call, for the queue's voice virtual agent: hands the call to a human agent (it waits for one); the "
                + "script's waits end.", returns: ["ccai.Call"])) { agent in
            guard agent.actions.kind == .virtual else { return nil }
            return { call in
                try call.suspend { [try LuaEncoder().encode(try await ScriptedAgent.refusalsAsLuaErrors { try await agent.actions.escalate() })] }
            }
        },
        AgentFunction("end_session", LuaSignature("Ends the call; false when it had already ended.", returns: ["boolean"])) { agent in
            { call in try call.suspend { [.boolean(try await agent.actions.end())] } }
        },
    ]

    private func makeModule() -> LuaModule {
        var module = LuaModule(name: "agent")
        for function in Self.functions {
            if let body = function.body(self) { module.function(function.name, function.signature, body) }
        }
        return module
    }
}
