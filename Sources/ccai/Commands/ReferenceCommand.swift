import CCAISandbox
import CCAIScripting
import Foundation

/// `ccai reference --out DIR`: writes the Markdown reference generated from the code (the
/// project keeps it in docs/reference/).
struct ReferenceCommand: Command {
    static let spec = CommandSpec(
        ["reference"], abstract: "write the Markdown reference generated from the code",
        discussion: """
            Writes the reference generated from the code: DIR/lua-api.md (every function of the
            ccai module and its events), DIR/plugins.md (the plugin spec and each hook's ctx),
            DIR/agents.md (the agent table and session of sandbox agent scripts),
            DIR/sandbox-configuration.md (every field of a sandbox configuration) and
            DIR/README.md. The project's copy is docs/reference/.
            """,
        options: [OutputFolder.option])

    var output: String

    init(_ arguments: ParsedArguments) throws {
        output = try OutputFolder.folder(in: arguments, for: Self.spec)
    }

    func execute() throws -> ExitStatus {
        try OutputFolder.write(ReferenceDocs.files(agent: (ScriptedAgent.stubModule, ConfigurationStubs.agentSession),
                                                   configuration: ConfigurationStubs.sandbox,
                                                   builtInCompany: ConfigurationOutline.text(.builtIn)), to: output)
    }
}
