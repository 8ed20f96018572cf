import CCAISandbox
import CCAIScripting
import Foundation

/// `ccai types --out DIR`: writes LuaLS stubs, a `.luarc.json` and a luacheck config.
struct TypesCommand {
    static let help = """
        Usage: ccai types --out DIR

        Writes editor and linter support for what you write: DIR/ccai.lua (LuaLS ---@meta
        stubs of the ccai module), DIR/plugin.lua (a plugin's spec and ctx:
        ccai.PluginSpec), DIR/agent.lua (the agent table and session of sandbox agent
        scripts: ccai.Agent, ccai.AgentSession), DIR/sandbox.lua (a sandbox configuration:
        ccai.sandbox.Configuration), DIR/.luarc.json (Lua 5.4, the sandbox's libraries),
        DIR/.luacheckrc (a luacheck std named ccai, for scripts and plugins) and
        DIR/agent.luacheckrc (agent scripts, which have no ccai global:
        luacheck --config DIR/agent.luacheckrc agents/). Point your editor's Lua language
        server at DIR, or copy the files next to your scripts.
        """

    var output: String

    init(arguments: [String]) throws {
        output = try Self.outputFolder(arguments, command: "types")
    }

    /// The `--out DIR` of a command that writes files (and nothing else).
    static func outputFolder(_ arguments: [String], command: String) throws -> String {
        var reader = ArgumentReader(arguments, command: command)
        var output: String?
        while let token = reader.next() {
            switch token {
            case .option("--out"): output = try reader.value(for: "--out")
            case .option(let option): throw reader.unknown(option)
            case .positional(let value): throw UsageError(message: "unexpected argument '\(value)'", command: command)
            }
        }
        guard let output else { throw UsageError(message: "\(command) needs --out DIR", command: command) }
        return output
    }

    func execute() -> Int32 {
        Self.write(TypeStubs.files(agent: (ScriptedAgent.stubModule, ConfigurationStubs.agentSession),
                                   extra: ["sandbox.lua": ConfigurationStubs.sandbox]), to: output)
    }

    /// Writes `files` into `folder` (created if needed), one line per file; the exit status.
    static func write(_ files: [String: String], to folder: String) -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, text) in files.sorted(by: { $0.key < $1.key }) {
                let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                print("wrote \(path)")
            }
            return 0
        } catch {
            printError("error: cannot write to '\(folder)': \(error.localizedDescription)")
            return 1
        }
    }
}
