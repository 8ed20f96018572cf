import CCAIKit
import Foundation
import LuaRuntime
import Timekeeping

/// The `ccai` module's utilities (docs/lua-runtime.md): `spawn`, `sleep`, `now`, `log`,
/// `json`, `env`, `uuid`. Later layers add the SDK services to the same table.
///
/// ```lua
/// ccai.log.info("started", { vu = ccai.env.VU })
/// local task = ccai.spawn(function() ccai.sleep(0.1); return ccai.uuid() end)
/// print(ccai.json.encode({ id = task:wait() }))
/// ```
public enum CCAIModule {
    /// The module's table description; with an SDK context, the SDK's services too.
    /// `clock` is the time `ccai.now()` reads (the platform's clock when the host knows it).
    public static func make(environment: [String: String], logger: ScriptLogger, sdk: SDKContext? = nil,
                            clock: any TimeSource = SystemClock()) -> LuaModule {
        var ccai = LuaModule(name: "ccai")
        ccai.makesMembersOnFirstRead = true
        if let sdk { SDKBindings.install(sdk, into: &ccai) }
        LuaTaskLibrary.install(into: &ccai)
        ccai.functions(utilityRows) { _ in clock }
        ccai.readOnly("env", LuaTable(strings: environment))
        ccai.module(logModule(logger))
        ccai.module(jsonModule())
        return ccai
    }

    static let utilityRows: [Binding<any TimeSource>] = [
        Binding("now", "Unix time in seconds.", now, returns: [.model(Double.self)]),
        Binding("uuid", "A random UUID (lowercase); in a scenario run, drawn from the run's seed.", uuid,
                returns: [.model(String.self)]),
    ]

    static func now(_ clock: any TimeSource, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.number(clock.now().timeIntervalSince1970))
    }

    static func uuid(_: any TimeSource, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let uuid = call.context.attachment(SeededUUIDs.self)?.next() ?? UUID()
        return call.returning(.string(uuid.uuidString.lowercased()))
    }

    /// `ccai.log.debug|info|warn|error(message, fields)`: a message and a table of any
    /// fields, which no argument model describes; so these are rows of their own
    /// (``LogRows``), each function made when a script first reads it.
    static func logModule(_ logger: ScriptLogger) -> LuaModule {
        var log = LuaModule(name: "ccai.log")
        log.makesMembersOnFirstRead = true
        log.members(LogRows(logger: logger))
        return log
    }

    /// One function for each log level, writing to one state's logger.
    private struct LogRows: LuaMemberRows {
        static let levels = LogLevel.allCases
        static let signatures = levels.map {
            LuaSignature("Logs at level \($0.rawValue).", parameters: ["message: string", "fields?: table"])
        }

        let logger: ScriptLogger

        var count: Int { Self.levels.count }

        func key(at index: Int) -> String { Self.levels[index].rawValue }

        func member(at index: Int) -> LuaModule.Member {
            let (level, logger) = (Self.levels[index], logger)
            return .function({ call in
                guard level >= logger.minimumLevel else { return .none }
                logger.log(try record(level, call))
                return .none
            }, Self.signatures[index])
        }
    }

    /// A log record from `(message, fields)` arguments.
    static func record(_ level: LogLevel, _ call: LuaCall) throws -> LogRecord {
        let message = try call.optionalString(1, "message") ?? ""
        var fields: [(key: String, value: LuaValue)] = []
        if !call.isNil(2) {
            let table = try call.table(2, "fields")
            for (key, value) in table.entries {
                fields.append((key.description, value))
            }
            fields.sort { $0.key < $1.key }
        }
        return LogRecord(level: level, message: message, fields: fields, source: call.callerLocation)
    }

    static let jsonRows: [Binding<Void>] = [
        Binding("encode", "JSON text of a value (keys sorted).", encode, returns: [.model(String.self)]),
        Binding("decode", "The value of JSON text (null reads as nil).", decode, returns: [.named("any")]),
    ]

    static func jsonModule() -> LuaModule {
        var json = LuaModule(name: "ccai.json")
        json.functions(jsonRows) { _ in () }
        return json
    }

    static func encode(_: Void, _ request: JSONEncoding, _ call: LuaCall) throws -> LuaReturn {
        do {
            return call.returning(.string(try LuaJSON.encode(request.value ?? .nil, pretty: request.pretty ?? false)))
        } catch let error as LuaJSON.Error {
            throw call.argumentError(1, "value", error.message)
        }
    }

    static func decode(_: Void, _ text: JSONTextArgument, _ call: LuaCall) throws -> LuaReturn {
        do {
            return call.returning(try LuaJSON.decode(text.value))
        } catch let error as LuaJSON.Error {
            throw call.argumentError(1, "text", error.message)
        }
    }
}

/// `ccai.json.encode(value, { pretty = true })`.
struct JSONEncoding: BindingArguments {
    static let layout = ArgumentLayout.leading("value", options: "options")
    /// Any value; nil encodes as null.
    var value: LuaValue?
    var pretty: Bool?
}

/// `ccai.json.decode(text)`.
struct JSONTextArgument: ValueArgument {
    static let name = "text"
    var value: Data
}
