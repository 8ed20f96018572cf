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
                            clock: any Clock = SystemClock()) -> LuaModule {
        var ccai = LuaModule(name: "ccai")
        if let sdk { SDKBindings.install(sdk, into: &ccai) }
        LuaTaskLibrary.install(into: &ccai)
        ccai.function("now", LuaSignature("Unix time in seconds.", returns: ["number"])) { call in call.returning(.number(clock.now().timeIntervalSince1970)) }
        ccai.function("uuid", LuaSignature("A random UUID (lowercase); in a scenario run, drawn from the run's seed.", returns: ["string"])) { call in
            let uuid = call.context.attachment(SeededUUIDs.self)?.next() ?? UUID()
            return call.returning(.string(uuid.uuidString.lowercased()))
        }
        var env = LuaTable()
        for (key, value) in environment { env[key] = .string(value) }
        ccai.readOnly("env", env)
        ccai.module(logModule(logger))
        ccai.module(jsonModule())
        return ccai
    }

    static func logModule(_ logger: ScriptLogger) -> LuaModule {
        var log = LuaModule(name: "ccai.log")
        for level in LogLevel.allCases {
            log.function(level.rawValue, LuaSignature("Logs at level \(level.rawValue).",
                                                      parameters: ["message: string", "fields?: table"])) { call in
                guard level >= logger.minimumLevel else { return .none }
                logger.log(try record(level, call))
                return .none
            }
        }
        return log
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

    static func jsonModule() -> LuaModule {
        var json = LuaModule(name: "ccai.json")
        json.function("encode", LuaSignature("JSON text of a value (keys sorted).",
                                             parameters: ["value: any", "options?: { pretty: boolean? }"],
                                             returns: ["string"])) { call in
            let value = try call.value(1, "value")
            let pretty = try call.options(2, "options").boolean("pretty") ?? false
            do {
                return call.returning(.string(try LuaJSON.encode(value, pretty: pretty)))
            } catch let error as LuaJSON.Error {
                throw call.argumentError(1, "value", error.message)
            }
        }
        json.function("decode", LuaSignature("The value of JSON text (null reads as nil).",
                                             parameters: ["text: string"], returns: ["any"])) { call in
            let text = try call.data(1, "text")
            do {
                return call.returning(try LuaJSON.decode(text))
            } catch let error as LuaJSON.Error {
                throw call.argumentError(1, "text", error.message)
            }
        }
        return json
    }
}
