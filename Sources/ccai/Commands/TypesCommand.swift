import CCAISandbox
import CCAIScripting
import Foundation

/// `ccai types --out DIR`: writes LuaLS stubs, a `.luarc.json` and a luacheck config.
struct TypesCommand {
    static let help = """
        Usage: ccai types --out DIR

        Writes editor and linter support for scripts: DIR/ccai.lua (LuaLS ---@meta stubs of
        the ccai module), DIR/agent.lua (the agent table of sandbox agent scripts, the class
        ccai.Agent), DIR/.luarc.json (Lua 5.4, the sandbox's libraries) and DIR/.luacheckrc
        (a luacheck std named ccai). Point your editor's Lua language server at DIR, or copy
        the files next to your scripts.
        """

    var output: String

    init(arguments: [String]) throws {
        var reader = ArgumentReader(arguments, command: "types")
        var output: String?
        while let token = reader.next() {
            switch token {
            case .option("--out"): output = try reader.value(for: "--out")
            case .option(let option): throw reader.unknown(option)
            case .positional(let value): throw UsageError(message: "unexpected argument '\(value)'", command: "types")
            }
        }
        guard let output else { throw UsageError(message: "types needs --out DIR", command: "types") }
        self.output = output
    }

    func execute() -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for (name, text) in TypeStubs.files(agentModule: ScriptedAgent.stubModule).sorted(by: { $0.key < $1.key }) {
                let path = URL(fileURLWithPath: output).appendingPathComponent(name).path
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                print("wrote \(path)")
            }
            return 0
        } catch {
            printError("error: cannot write to '\(output)': \(error.localizedDescription)")
            return 1
        }
    }
}
