import CCAIWire
import CCAIKit
import Foundation
import LuaRuntime

/// What the SDK bindings of one Lua state work with: the SDK instance, the host's signer,
/// the state's event emitters, the plugins that answer smart actions and forms, and the
/// folder relative attachment paths start from. It lives on the state's executor (the
/// emitters belong to the state).
///
/// ```swift
/// var context = SDKContext(sdk: ccai)
/// context.plugins = host
/// let module = CCAIModule.make(environment: [:], logger: logger, sdk: context)
/// ```
public struct SDKContext {
    public var sdk: CCAI
    /// Signs `custom_data = { signed = ... }` claims (the host's company secret).
    public var signer: ClaimsSigner?
    /// The Apps API `ccai.apps` calls (the embedded sandbox's, or `--apps-host`'s); nil: none.
    public var apps: AppsClient?
    /// The webhooks the run receives (`--webhook-listen`), by chat: `ccai.apps.start_chat`
    /// subscribes its state to its chat's; nil: no `ccai.apps` events.
    public var webhooks: WebhookInbox?
    /// The emitter of each service's events (``EventService``; none: no `on`/`wait_for`).
    public var emitters: [EventService: LuaEventEmitter] = [:]
    /// The plugins the host runs when a smart action or a form asks for an answer.
    public var plugins: PluginHost?
    /// Where the hooks this state's answers set off report their failures (the scenario
    /// runner's `plugin_errors`); nil: only the plugin's own error list and the log.
    public var pluginFailures: PluginFailures?
    /// The folder file paths (`images = { { path = "receipt.jpg" } }`) are read from, and
    /// confined to: the script's folder. Nil: the working directory.
    public var fileRoot: String?
    /// Where the host reports what its automatic answers did.
    public var logger: ScriptLogger
    /// The folder files are written to (transcripts), and confined to; nil:
    /// ``defaultOutputFolder`` in the working directory, made on the first write.
    public var outputRoot: String?
    /// Where files go unless the run says otherwise (`--out-dir`): never the working
    /// directory itself, where a script could write over `.bashrc`.
    public static let defaultOutputFolder = "ccai-out"

    public init(sdk: CCAI, signer: ClaimsSigner? = nil, plugins: PluginHost? = nil, fileRoot: String? = nil,
                logger: ScriptLogger = StreamLogger(minimumLevel: .error)) {
        self.sdk = sdk
        self.signer = signer
        self.plugins = plugins
        self.fileRoot = fileRoot
        self.logger = logger
    }

    /// The folder scripts write files to, for a write about to happen: ``outputRoot``, else
    /// ``defaultOutputFolder`` in the working directory, made now (mode 0700) if it is not
    /// there yet; a `ccai-out` that is a symlink or not a folder is refused, not followed.
    func outputFolder() throws -> ConfinedFolder {
        try Self.outputFolder(root: outputRoot)
    }

    /// The folder scripts write files to: `root` (`--out-dir`), else ``defaultOutputFolder``
    /// in the working directory, made now if needed (see ``outputFolder()``).
    public static func outputFolder(root: String?) throws -> ConfinedFolder {
        if let root { return try ConfinedFolder(root) }
        let folder = Self.defaultOutputFolder
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw ConfinedFolder.Refusal(kind: .unreadable, message: "cannot make the output folder '\(folder)' (errno \(errno))")
        }
        var status = stat()
        guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw ConfinedFolder.Refusal(kind: .outside, message: "'\(folder)' in the working directory is not a folder (a symlink "
                                         + "is not followed): remove it, or choose the folder with --out-dir")
        }
        return try ConfinedFolder(folder)
    }

    /// The folder scripts read files from (``fileRoot``, else the working directory).
    func files() throws -> ConfinedFolder {
        do {
            return try ConfinedFolder(fileRoot ?? FileManager.default.currentDirectoryPath)
        } catch let refusal as ConfinedFolder.Refusal {
            throw LuaErrorValue(code: ErrorCode.forbidden.rawValue, message: refusal.message)
        }
    }
}

/// One state's ``SDKContext`` behind a reference: the builders of its services' tables hold
/// it once, not a copy each, and so do the chat's rows, which resolve the context through it.
final class SDKContextReference {
    let context: SDKContext

    init(_ context: SDKContext) {
        self.context = context
    }

    /// The context, as the rows of a module get it (``LuaModule/functions(_:context:)``).
    var resolve: (LuaCall) throws -> SDKContext { { [self] _ in context } }
}
