import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// A loaded plugin as `ccai.plugins.list()` and `ccai plugins check` describe it.
public struct PluginInfo: Codable, Sendable, Equatable {
    /// What ``state`` may be.
    static let states = ["loaded", "failed"]

    public var name: String
    public var version: String?
    public var file: String
    /// `"loaded"` or `"failed"` (``states``).
    public var state: String
    /// Load, reload and hook errors, oldest first (the last 20).
    public var errors: [String]
    public var priority: Double
    /// Hook names, with smart action types and form keys (`smart_actions.text`).
    public var hooks: [String]

    var luaValue: LuaValue {
        var table = LuaTable()
        table["name"] = .string(name)
        if let version { table["version"] = .string(version) }
        table["file"] = .string(file)
        table["state"] = .string(state)
        table["errors"] = .array(errors.map { .string($0) })
        table["priority"] = .number(priority)
        table["hooks"] = .array(hooks.map { .string($0) })
        return .table(table)
    }
}

/// Loads plugins (docs/plugins.md) from folders, each in a confined state of its own
/// (its own globals and budgets), runs their hooks in priority order with errors isolated,
/// and reloads a changed plugin only when the new version loads cleanly.
///
/// ```swift
/// let host = PluginHost(directories: ["plugins"], runner: runner)
/// _ = await host.load()
/// let decision = await host.evaluateDeflection(menu: billing, channel: "chat", context: ctx)
/// ```
public actor PluginHost {
    private struct Plugin {
        var file: String
        var modified: Date
        var state: LuaState
        var spec: PluginSpec
        var errors: [String]
    }

    public let directories: [String]
    private let runner: ScriptRunner
    /// Seconds a hook may take before it counts as failed (default 10).
    public var hookTimeout: TimeInterval = 10
    private var plugins: [String: Plugin] = [:]
    private var failures: [String: (modified: Date, info: PluginInfo)] = [:]
    private var watcher: Task<Void, Never>?

    /// Whether a plugin that fails to load is logged (a caller that lists the failures
    /// itself, like `ccai plugins check`, says no: each is reported once).
    private let logsLoadFailures: Bool

    public init(directories: [String], runner: ScriptRunner, logsLoadFailures: Bool = true) {
        self.directories = directories
        self.runner = runner
        self.logsLoadFailures = logsLoadFailures
    }

    // MARK: - Loading

    /// Loads every plugin of the folders; returns the list.
    @discardableResult
    public func load() async -> [PluginInfo] {
        for source in discover() where plugins[source.file] == nil && failures[source.file] == nil {
            await loadOrRecord(source)
        }
        return list()
    }

    /// Where a plugin's code comes from: `relative` inside the confined `folder` (the
    /// plugins folder it was found in; for a `.lua` file named directly, the file's folder).
    struct Source {
        /// The plugin's name in lists and logs: `folder/x.lua` or `folder/x/init.lua`.
        var file: String
        var folder: String
        var relative: String
        /// A folder plugin's own folder, where its `require` looks; nil for a single file.
        var requireRoot: String? = nil
        /// Why the plugin is not read at all (a plugin folder leading out of its plugins folder).
        var refusal: String? = nil
    }

    /// Plugin files: `*.lua` files and folders with an `init.lua`, per folder, sorted; a
    /// `.lua` file given instead of a folder is that one plugin. A folder that does not
    /// exist is reported as a failed entry, and so is a plugin folder that is a symlink
    /// leading out of its plugins folder (files are checked when they are read).
    private func discover() -> [Source] {
        var sources: [Source] = []
        for directory in directories {
            var isFolder: ObjCBool = false
            if directory.hasSuffix(".lua"), FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                let url = URL(fileURLWithPath: directory)
                sources.append(Source(file: directory, folder: url.deletingLastPathComponent().path, relative: url.lastPathComponent))
                continue
            }
            guard let root = try? ConfinedFolder(directory),
                let entries = try? FileManager.default.contentsOfDirectory(atPath: directory)
            else {
                failures[directory] = (Date.distantPast, PluginInfo(
                    name: URL(fileURLWithPath: directory).lastPathComponent, version: nil, file: directory,
                    state: "failed", errors: ["cannot read the plugin folder '\(directory)'"], priority: 0, hooks: []))
                continue
            }
            for entry in entries.sorted() where !entry.hasPrefix(".") {
                let path = URL(fileURLWithPath: directory).appendingPathComponent(entry).path
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    let initFile = path + "/init.lua"
                    guard FileManager.default.fileExists(atPath: initFile) else { continue }
                    var source = Source(file: initFile, folder: directory, relative: entry + "/init.lua")
                    if let own = try? ConfinedFolder(path), own.root.hasPrefix(root.root == "/" ? "/" : root.root + "/") {
                        source.requireRoot = own.root
                    } else {
                        source.refusal = "\(initFile): the plugin folder '\(entry)' leads outside '\(directory)': plugins are read inside their plugins folder"
                    }
                    sources.append(source)
                } else if entry.hasSuffix(".lua") {
                    sources.append(Source(file: path, folder: directory, relative: entry))
                }
            }
        }
        return sources
    }

    private func loadOrRecord(_ source: Source) async {
        let file = source.file
        let modified = Self.modification(of: file)
        switch await loadPlugin(source) {
        case .success(let plugin):
            plugins[file] = plugin
            failures[file] = nil
            runner.logger.log(LogRecord(level: .info, message: "plugin loaded",
                                        fields: [("name", .string(plugin.spec.name)), ("file", .string(file))]))
        case .failure(let error):
            failures[file] = (modified, PluginInfo(
                name: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent, version: nil, file: file,
                state: "failed", errors: [error.message], priority: 0, hooks: []))
            if logsLoadFailures {
                runner.logger.log(LogRecord(level: .error, message: "plugin failed to load: \(error.message)",
                                            fields: [("file", .string(file))]))
            }
        }
    }

    /// The source of a plugin, read inside its folder (``ConfinedFolder``: no symlink that
    /// leads out, regular files only, at most ``LuaConfinement/maximumModuleBytes``).
    private func read(_ source: Source) throws -> String {
        if let refusal = source.refusal { throw PluginLoadError(refusal) }
        do {
            let bytes = try ConfinedFolder(source.folder).read(source.relative, maximumBytes: LuaConfinement.maximumModuleBytes)
            return String(decoding: bytes, as: UTF8.self)
        } catch let refusal as ConfinedFolder.Refusal {
            throw PluginLoadError("\(source.file): \(refusal.message.replacingOccurrences(of: "script's folder", with: "plugins folder"))")
        }
    }

    /// Loads one plugin into a fresh state and runs its `on_load`.
    private func loadPlugin(_ source: Source, replacing existing: String? = nil) async -> Result<Plugin, PluginLoadError> {
        let file = source.file
        let modified = Self.modification(of: file)
        do {
            let code = try read(source)
            let state = try await runner.makePluginState(folder: source.requireRoot, printTag: URL(fileURLWithPath: file).lastPathComponent)
            do {
                try await state.run(source: code, chunkName: "@" + file, keepingResultAs: "plugin")
            } catch let error as LuaScriptError {
                await state.close()
                return .failure(PluginLoadError(error.message))
            }
            let spec: PluginSpec
            switch PluginSpec.parse(await state.inspect(kept: "plugin")) {
            case .success(let parsed): spec = parsed
            case .failure(let error):
                await state.close()
                return .failure(PluginLoadError("\(file): \(error.message)"))
            }
            if let other = plugins.values.first(where: { $0.spec.name == spec.name && $0.file != file && $0.file != existing }) {
                await state.close()
                return .failure(PluginLoadError("\(file): a plugin named '\(spec.name)' is already loaded from \(other.file)"))
            }
            var plugin = Plugin(file: file, modified: modified, state: state, spec: spec, errors: [])
            if spec.hooks.contains("on_load") {
                if case .failure(let error) = await invoke(&plugin, ["on_load"], [context(for: plugin)]) {
                    await state.close()
                    return .failure(PluginLoadError("on_load failed: \(error.message)"))
                }
            }
            return .success(plugin)
        } catch let error as PluginLoadError {
            return .failure(error)
        } catch {
            return .failure(PluginLoadError("\(file): \(error)"))
        }
    }

    /// The `ctx` of `on_load` and `on_unload`.
    private func context(for plugin: Plugin) -> LuaValue {
        ["name": .string(plugin.spec.name), "file": .string(plugin.file), "config": plugin.spec.config]
    }

    /// A hook's `ctx`: the host's context plus the plugin's `config`.
    private func context(_ context: LuaValue, for plugin: Plugin) -> LuaValue {
        guard case .table(var table) = context else { return context }
        table["config"] = plugin.spec.config
        return .table(table)
    }

    // MARK: - Listing

    /// Loaded and failed plugins, in the order hooks run.
    public func list() -> [PluginInfo] {
        ordered().map { plugin in
            var hooks = plugin.spec.hooks.sorted()
            hooks += plugin.spec.smartActions.sorted().map { "smart_actions.\($0)" }
            hooks += plugin.spec.forms.sorted().map { "forms.\($0)" }
            return PluginInfo(name: plugin.spec.name, version: plugin.spec.version, file: plugin.file, state: "loaded",
                              errors: plugin.errors, priority: plugin.spec.priority, hooks: hooks)
        } + failures.values.map(\.info).sorted { $0.file < $1.file }
    }

    /// Plugins by priority (higher first), then name.
    private func ordered() -> [Plugin] {
        plugins.values.sorted { ($0.spec.priority, $1.spec.name) > ($1.spec.priority, $0.spec.name) }
    }

    // MARK: - Hooks

    /// Runs a hook function with a time limit; errors are recorded on the plugin, and
    /// reported to `failures` (the state that set the hook off).
    private func invoke(_ plugin: inout Plugin, _ path: [LuaValue], _ arguments: [LuaValue], reporting failures: PluginFailures? = nil)
        async -> Result<LuaValue, PluginLoadError>
    {
        let state = plugin.state
        let timeout = hookTimeout
        let outcome: Result<[LuaValue]?, Error> = await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let failure = PluginLoadError("\(path.map(\.description).joined(separator: ".")) took longer than \(formatSeconds(timeout)) seconds")
            // The timeout goes through the task pool like the call, so a busy pool delays both alike.
            let timer = runner.clock.schedule(after: timeout) { Task { once.resume(with: .failure(failure)) } }
            Task {
                once.resume(with: await Result { try await state.call(kept: "plugin", path: path, arguments: arguments) })
                timer.cancel()
            }
        }
        switch outcome {
        case .success(let values):
            return .success(values?.first ?? .nil)
        case .failure(let error):
            let message = (error as? LuaScriptError).map { $0.message } ?? String(describing: error)
            record(&plugin, "\(path.map(\.description).joined(separator: ".")): \(message)")
            failures?.report(.init(plugin: plugin.spec.name, hook: path.first?.stringValue ?? "", message: message))
            return .failure(PluginLoadError(message))
        }
    }

    private func record(_ plugin: inout Plugin, _ message: String) {
        plugin.errors.append(message)
        if plugin.errors.count > 20 { plugin.errors.removeFirst(plugin.errors.count - 20) }
        runner.logger.log(LogRecord(level: .error, message: "plugin '\(plugin.spec.name)' failed: \(message)",
                                    fields: [("file", .string(plugin.file))]))
    }

    /// The first non-nil `deflection` answer, in priority order, else the SDK's default.
    /// A failing or invalid hook is recorded, reported to `failures`, and skipped.
    public func evaluateDeflection(menu: QueueMenu, channel: String, context: LuaValue, reporting failures: PluginFailures? = nil)
        async -> DeflectionDecision
    {
        let menuValue = (try? LuaEncoder().encode(menu)) ?? .nil
        for original in ordered() where original.spec.hooks.contains("deflection") {
            var plugin = original
            defer { plugins[plugin.file]?.errors = plugin.errors }
            guard case .success(let answer) = await invoke(&plugin, ["deflection"], [menuValue, self.context(context, for: plugin)],
                                                           reporting: failures),
                !answer.isNil
            else { continue }
            do {
                return try DeflectionDecision.parse(answer, plugin: plugin.spec.name)
            } catch {
                let message = (error as? PluginLoadError)?.message ?? String(describing: error)
                record(&plugin, message)
                failures?.report(.init(plugin: plugin.spec.name, hook: "deflection", message: message))
            }
        }
        return DeflectionDecision.sdkDefault(for: menu, channel: channel)
    }

    /// The post-session hooks (docs/plugins.md): `post_session` and `post_session_opt_in`
    /// take the first non-nil answer, `survey` and `csat` the first plugin's with one.
    public enum PostSessionHook: String, Sendable {
        case postSession = "post_session"
        case postSessionOptIn = "post_session_opt_in"
        case survey
        case csat

        var firstNonNilWins: Bool { self == .postSession || self == .postSessionOptIn }
    }

    /// Runs `hook` of the plugins in priority order with `argument` and `ctx`, and returns
    /// the answer that counts: the first non-nil one (`post_session`,
    /// `post_session_opt_in`), or the first plugin's with the hook (`survey`, `csat`). A
    /// failing hook is recorded with the plugin's name and skipped.
    public func ask(_ hook: PostSessionHook, argument: LuaValue, context: LuaValue, reporting failures: PluginFailures? = nil)
        async -> HandlerOutcome
    {
        var failure: HandlerOutcome = .unhandled
        for original in ordered() where original.spec.hooks.contains(hook.rawValue) {
            var plugin = original
            defer { plugins[plugin.file]?.errors = plugin.errors }
            switch await invoke(&plugin, [.string(hook.rawValue)], [argument, self.context(context, for: plugin)], reporting: failures) {
            case .success(let answer):
                if answer.isNil, hook.firstNonNilWins { continue }
                return .answered(answer, plugin: plugin.spec.name,
                                 folder: URL(fileURLWithPath: plugin.file).deletingLastPathComponent().path)
            case .failure(let error):
                failure = .failed(plugin: plugin.spec.name, message: error.message)
                if !hook.firstNonNilWins { return failure }
            }
        }
        return failure
    }

    /// What the first plugin with a handler for a key answered (`smart_actions` by type,
    /// `forms` by form id or external form id, or `"*"`).
    public enum HandlerOutcome: Sendable {
        /// No plugin handles it.
        case unhandled
        /// The handler's answer, with the plugin's folder (for relative file paths).
        case answered(LuaValue, plugin: String, folder: String)
        /// The handler failed (recorded on the plugin).
        case failed(plugin: String, message: String)
    }

    /// The keyed hook tables of a spec.
    public enum KeyedHook: String, Sendable {
        case smartActions = "smart_actions"
        case forms

        var keys: KeyPath<PluginSpec, Set<String>> {
            self == .smartActions ? \PluginSpec.smartActions : \PluginSpec.forms
        }
    }

    /// Whether some plugin handles `key` (or `"*"`) in `hook`.
    public func handles(_ hook: KeyedHook, key: String) -> Bool {
        plugins.values.contains { $0.spec[keyPath: hook.keys].contains(key) || $0.spec[keyPath: hook.keys].contains("*") }
    }

    /// Runs `hook[key]` (or `hook["*"]`) of the first plugin, in priority order, that has
    /// one, with `argument` and `ctx`.
    public func answer(_ hook: KeyedHook, key: String, argument: LuaValue, context: LuaValue, reporting failures: PluginFailures? = nil)
        async -> HandlerOutcome
    {
        let keys = hook.keys
        guard let original = ordered().first(where: { $0.spec[keyPath: keys].contains(key) || $0.spec[keyPath: keys].contains("*") })
        else { return .unhandled }
        var plugin = original
        defer { plugins[plugin.file]?.errors = plugin.errors }
        let handler = plugin.spec[keyPath: keys].contains(key) ? key : "*"
        let handlerKey = plugin.spec.originalKeys["\(hook.rawValue).\(handler)"] ?? .string(handler)
        switch await invoke(&plugin, [.string(hook.rawValue), handlerKey], [argument, self.context(context, for: plugin)],
                            reporting: failures) {
        case .success(let answer):
            return .answered(answer, plugin: plugin.spec.name, folder: URL(fileURLWithPath: plugin.file).deletingLastPathComponent().path)
        case .failure(let error):
            return .failed(plugin: plugin.spec.name, message: error.message)
        }
    }

    /// Records a problem with a plugin's answer to `hook` (found after the hook returned),
    /// and reports it to `failures`.
    public func recordError(plugin name: String, hook: String, reporting failures: PluginFailures? = nil, _ message: String) {
        failures?.report(.init(plugin: name, hook: hook, message: message))
        guard let file = plugins.values.first(where: { $0.spec.name == name })?.file, var plugin = plugins[file] else { return }
        record(&plugin, message)
        plugins[file] = plugin
    }

    // MARK: - Reloading

    /// Reloads plugins whose files changed, loads new ones, unloads removed ones. A changed
    /// plugin is replaced only if the new version loads; otherwise the old one keeps
    /// running and the error is recorded. Returns the files reloaded.
    @discardableResult
    public func reloadChanged() async -> [String] {
        var reloaded: [String] = []
        let sources = discover()
        let present = Set(sources.map(\.file))
        for file in plugins.keys where !present.contains(file) {
            await unload(file)
        }
        for file in failures.keys where !present.contains(file) && !directories.contains(file) {
            failures[file] = nil
        }
        for source in sources.sorted(by: { $0.file < $1.file }) {
            let file = source.file
            let modified = Self.modification(of: file)
            if var current = plugins[file] {
                guard modified > current.modified else { continue }
                switch await loadPlugin(source, replacing: file) {
                case .success(let fresh):
                    if current.spec.hooks.contains("on_unload") {
                        _ = await invoke(&current, ["on_unload"], [context(for: current)])
                    }
                    await current.state.close()
                    plugins[file] = fresh
                    reloaded.append(file)
                    runner.logger.log(LogRecord(level: .info, message: "plugin reloaded",
                                                fields: [("name", .string(fresh.spec.name)), ("file", .string(file))]))
                case .failure(let error):
                    current.modified = modified
                    record(&current, "reload failed, the previous version keeps running: \(error.message)")
                    plugins[file] = current
                }
            } else if let failed = failures[file], modified <= failed.modified {
                continue
            } else {
                await loadOrRecord(source)
                if plugins[file] != nil { reloaded.append(file) }
            }
        }
        return reloaded
    }

    /// Checks for changes every `interval` seconds (of the runner's clock) until
    /// `stopWatching` or `shutdown`.
    public func startWatching(every interval: TimeInterval = 0.5) {
        watcher?.cancel()
        let clock = runner.clock
        watcher = Task { [weak self] in
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.reloadChanged()
            }
        }
    }

    public func stopWatching() {
        watcher?.cancel()
        watcher = nil
    }

    private func unload(_ file: String) async {
        guard var plugin = plugins.removeValue(forKey: file) else { return }
        if plugin.spec.hooks.contains("on_unload") {
            _ = await invoke(&plugin, ["on_unload"], [context(for: plugin)])
        }
        await plugin.state.close()
    }

    /// Stops watching and unloads every plugin (`on_unload` first).
    public func shutdown() async {
        stopWatching()
        for file in plugins.keys.sorted() { await unload(file) }
    }

    /// The latest modification of a plugin file (for `init.lua`, of its whole folder).
    static func modification(of file: String) -> Date {
        let attributes = { (path: String) in
            (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
        }
        guard file.hasSuffix("/init.lua") else { return attributes(file) }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.map { attributes(folder + "/" + $0) }.max() ?? attributes(file)
    }
}

/// Resumes a continuation once, from whichever task finishes first.
private final class ResumeOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    func resume(with value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}

private func formatSeconds(_ seconds: TimeInterval) -> String {
    Checked.integer(seconds).map(String.init) ?? String(seconds)
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
