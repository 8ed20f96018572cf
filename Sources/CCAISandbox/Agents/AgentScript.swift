import Foundation

import LuaRuntime

/// The Lua script of a sandbox agent (docs/sdk-and-sandbox.md, agent scripts): a file that returns
/// `function(agent, session)`, run in a fresh confined state for each session. It is
/// compiled once, when the sandbox starts, so a syntax error stops the start, not the first
/// chat, and each session loads the bytecode instead of compiling the text again.
struct AgentScript: Sendable {
    /// Where the script was read from (its chunk name in error messages).
    let path: String
    let chunk: LuaChunk

    /// Reads `path`, or throws a configuration error naming the `field` that gave it
    /// (`agents[Ava].script`).
    init(field: String, path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "\(field): cannot read '\(path)'")
        }
        self.path = path
        do {
            chunk = try LuaState.compile(String(decoding: data, as: UTF8.self), chunkName: "@" + path)
        } catch let error as LuaScriptError {
            throw ConfigurationError(message: "\(field): \(error.message)")
        }
    }
}

/// A configuration's agent and virtual agent scripts, read and compiled, with a problem
/// for each that cannot be (all of them, so a check reports every script at once).
struct AgentScripts {
    /// By agent name.
    var agents: [String: AgentScript] = [:]
    /// By virtual agent id.
    var virtualAgents: [String: AgentScript] = [:]
    var problems: [String] = []

    init(configuration: SandboxConfiguration) {
        for agent in configuration.agents ?? [] {
            if let path = agent.script { agents[agent.name] = compile(field: "agents[\(agent.name)].script", path: path) }
        }
        for (id, virtualAgent) in (configuration.virtualAgents ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let path = virtualAgent.script { virtualAgents[id] = compile(field: "virtual_agents[\(id)].script", path: path) }
        }
    }

    /// Compiles scripts named by the field that gives each, for their problems only (the
    /// scripts of a configuration that may not have decoded: ``ScriptReferences``).
    init(compiling scripts: [(field: String, path: String)]) {
        for (field, path) in scripts { _ = compile(field: field, path: path) }
    }

    private mutating func compile(field: String, path: String) -> AgentScript? {
        do {
            return try AgentScript(field: field, path: path)
        } catch {
            problems.append((error as? ConfigurationError)?.message ?? "\(field): \(error)")
            return nil
        }
    }
}
