import CCAISandbox
import CCAIScripting
import Foundation

/// `ccai types --out DIR`: writes LuaLS stubs, a `.luarc.json` and a luacheck config.
struct TypesCommand: Command {
    static let spec = CommandSpec(
        ["types"], abstract: "write LuaLS stubs, .luarc.json and luacheck settings",
        discussion: """
            Writes editor and linter support for what you write: DIR/ccai.lua (LuaLS ---@meta
            stubs of the ccai module), DIR/plugin.lua (a plugin's spec and ctx:
            ccai.PluginSpec), DIR/agent.lua (the agent table and session of sandbox agent
            scripts: ccai.Agent, ccai.AgentSession), DIR/sandbox.lua (a sandbox configuration:
            ccai.sandbox.Configuration), DIR/.luarc.json (Lua 5.4, the sandbox's libraries),
            DIR/.luacheckrc (a luacheck std named ccai, for scripts and plugins, and one named
            sandbox, for configurations that read env: -- luacheck: std +sandbox) and
            DIR/agent.luacheckrc (agent scripts, which have no ccai global:
            luacheck --config DIR/agent.luacheckrc agents/). Point your editor's Lua language
            server at DIR, or copy the files next to your scripts.
            """,
        options: [OutputFolder.option])

    var output: String

    init(_ arguments: ParsedArguments) throws {
        output = try OutputFolder.folder(in: arguments, for: Self.spec)
    }

    func execute() throws -> ExitStatus {
        try OutputFolder.write(TypeStubs.files(agent: (ScriptedAgent.stubModule, ConfigurationStubs.agentSession),
                                               extra: ["sandbox.lua": ConfigurationStubs.sandbox]), to: output)
    }
}
