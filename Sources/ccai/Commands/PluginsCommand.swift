import CCAIScripting
import CCAIWire
import Foundation

/// `ccai plugins check DIR...`: loads every plugin and reports; non-zero on any error.
struct PluginsCommand: Command {
    static let spec = CommandSpec(
        ["plugins", "check"], arguments: "DIR|FILE...", abstract: "load and validate plugins",
        discussion: """
            Loads every plugin of the folders (a *.lua file, or a folder with an init.lua, that
            returns a spec with at least a name), or the plugin files given, runs their on_load
            against the embedded sandbox, and prints one line per plugin.
            """,
        epilogue: "Exit status: 0 when all load, 1 otherwise, 2 on usage errors.")

    var directories: [String]

    init(_ arguments: ParsedArguments) throws {
        directories = arguments.positionals
        guard !directories.isEmpty else { throw Self.spec.usageError("plugins check needs at least one folder") }
    }

    func execute() async throws -> ExitStatus {
        let connection = try await PlatformConnection().open(identity: EndUser(identifier: "plugins-check"))
        let runner = ScriptRunner(logger: StreamLogger(minimumLevel: .warn), sdk: connection.sdk)
        let host = PluginHost(directories: directories, runner: runner, logsLoadFailures: false)
        let plugins = await host.load()
        await host.shutdown()
        await connection.server?.stop()
        withExtendedLifetime(connection.delegate) {}
        for plugin in plugins {
            if plugin.state == "loaded" {
                let version = plugin.version.map { " \($0)" } ?? ""
                print("ok    \(plugin.name)\(version) (\(plugin.file)) hooks: \(plugin.hooks.joined(separator: ", "))")
            } else {
                print("FAIL  \(plugin.file): \(plugin.errors.joined(separator: "; "))")
            }
        }
        let failed = plugins.filter { $0.state != "loaded" }.count
        print("\(plugins.count - failed) loaded, \(failed) failed")
        return failed == 0 ? .success : .failure
    }
}
