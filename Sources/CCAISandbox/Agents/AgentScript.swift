import Foundation

import LuaRuntime

/// The Lua script of a sandbox agent (docs/sdk-and-sandbox.md, agent scripts): a file that returns
/// `function(agent, session)`, run in a fresh sandboxed state for each session. It is
/// compiled when the sandbox starts, so a syntax error stops the start, not the first chat.
struct AgentScript: Sendable {
    /// Where the script was read from (its chunk name in error messages).
    let path: String
    let source: String

    /// Reads `path`, or throws a configuration error naming the `field` that gave it
    /// (`agents[Ava].script`).
    init(field: String, path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "\(field): cannot read '\(path)'")
        }
        self.path = path
        self.source = String(decoding: data, as: UTF8.self)
        do {
            try LuaState.checkSyntax(source, chunkName: "@" + path)
        } catch let error as LuaScriptError {
            throw ConfigurationError(message: "\(field): \(error.message)")
        }
    }
}
