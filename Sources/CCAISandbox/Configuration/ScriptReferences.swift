import Foundation
import LuaRuntime

/// The agent and virtual agent scripts a configuration file names, read from the table it
/// returned rather than from its decoded value: a script is compiled, and its syntax error
/// reported, even when a wrong field elsewhere (in the same agent entry, say) keeps the
/// configuration from decoding.
struct ScriptReferences {
    /// `agents[Ava].script` (an agent without a readable name: `agents[2].script`), then
    /// `virtual_agents[id].script` by id, each with its path made absolute.
    private(set) var scripts: [(field: String, path: String)] = []

    init(in configuration: LuaValue, relativeTo folder: URL) {
        for (index, agent) in (configuration["agents"]?.arrayValue ?? []).enumerated() {
            guard let path = agent["script"]?.stringValue else { continue }
            let name = agent["name"]?.stringValue ?? String(index + 1)
            scripts.append(("agents[\(name)].script", Self.resolve(path, relativeTo: folder)))
        }
        for (id, virtualAgent) in (configuration["virtual_agents"]?.dictionaryValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let path = virtualAgent["script"]?.stringValue else { continue }
            scripts.append(("virtual_agents[\(id)].script", Self.resolve(path, relativeTo: folder)))
        }
    }

    /// `path` relative to `folder`, unless it is absolute.
    static func resolve(_ path: String, relativeTo folder: URL) -> String {
        path.hasPrefix("/") ? path : folder.appendingPathComponent(path).path
    }
}
