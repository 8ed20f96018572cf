import LuaRuntime

/// `ccai help [COMMAND]` and `ccai --version`.
enum HelpCommand {
    static let version = "0.1.0"

    static let overview = """
        ccai: a scripting host for Contact Center AI Platform automation (Lua 5.4).

        Usage: ccai COMMAND [options]

        Commands:
          run SCRIPT        run a Lua script in the sandboxed runtime
          sandbox serve     serve the platform emulator over HTTP
          sandbox check     validate sandbox configurations and compile their agent scripts
          plugins check     load and validate plugins
          report merge      merge the summaries of a run's segments into one
          jwt sign          sign an end-user JWT with a company secret
          types --out DIR   write LuaLS stubs, .luarc.json and luacheck settings
          reference --out DIR  write the Markdown reference generated from the code
          help [COMMAND]    show help for ccai or for one command

        Options:
          --version         print the version
          -h, --help        show this help

        Run 'ccai help run' for the options of a command.
        """

    static var versionText: String { "ccai \(version) (\(LuaState.luaRelease))" }

    /// The help text of `command`, or nil when there is no such command.
    static func text(for command: String?) -> String? {
        switch command {
        case nil, "help": return overview
        case "run": return RunCommand.help
        case "jwt": return JWTCommand.help
        case "sandbox": return SandboxCommand.help
        case "plugins": return PluginsCommand.help
        case "report": return ReportCommand.help
        case "types": return TypesCommand.help
        case "reference": return ReferenceCommand.help
        default: return nil
        }
    }
}
