import Foundation

/// The Lua script of a sandbox agent (docs/sdk-and-sandbox.md, agent scripts): a file that returns
/// `function(agent, session)`, run in a fresh sandboxed state for each session.
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
    }
}
