import Foundation
import LuaRuntime

/// The Lua side of ``ScenarioData``: `ccai.data.csv(path)` and `ccai.data.json(path)`.
enum DataBindings {
    static func module(_ data: ScenarioData, folder: String?) -> LuaModule {
        var module = LuaModule(name: "ccai.data")
        for format in [ScenarioData.Format.csv, .json] {
            let what = format == .csv ? "the rows of a CSV file (each a table by header; values are strings)"
                : "the value of a JSON file"
            module.function(format.rawValue, LuaSignature(
                "Reads \(what) in the script's folder, once per run and shared by every VU; a list is read-only.",
                parameters: ["path: string"], returns: [format == .csv ? "table<string, string>[]" : "any"]
            )) { call in
                let path = try call.string(1, "path")
                let loaded: (key: String, value: LuaValue)
                do {
                    let root = try ConfinedFolder(folder ?? FileManager.default.currentDirectoryPath)
                    loaded = try data.load(path, in: root, format: format)
                } catch let refusal as ConfinedFolder.Refusal {
                    throw call.argumentError(1, "path", refusal.message)
                } catch let problem as ScenarioDataError {
                    throw LuaErrorValue.invalidArgument(problem.message)
                }
                if let list = loaded.value.arrayValue {
                    return call.returning(.string(loaded.key), .integer(Int64(list.count)))
                }
                return call.returning(.nil, .nil, loaded.value)
            }
        }
        module.decorate(with: decorator) { [$0.makeFunction("ccai.data.row", row(data))] }
        return module
    }

    /// `row(key, index)`: element `index` of a loaded list, made fresh.
    static func row(_ data: ScenarioData) -> LuaFunctionBody {
        { call in
            let key = try call.string(1, "key")
            let index = try call.integer(2, "index")
            guard let list = data.value(key)?.arrayValue, index >= 1, index <= Int64(list.count) else {
                return call.returning(.nil)
            }
            return call.returning(list[Int(index) - 1])
        }
    }

    static let decorator = LuaDecorator("""
        local data, row = ...
        local setmetatable, error, mtype = setmetatable, error, math.type
        for _, format in ipairs({ "csv", "json" }) do
          local open = data[format]
          data[format] = function(path)
            local key, count, whole = open(path)
            if key == nil then return whole end
            return setmetatable({}, {
              __index = function(_, i) if mtype(i) == "integer" then return row(key, i) end end,
              __len = function() return count end,
              __newindex = function() error("ccai.data: the rows are read-only", 2) end,
              __pairs = function()
                local i = 0
                return function() i = i + 1 if i <= count then return i, row(key, i) end end
              end,
              __metatable = false,
            })
          end
        end
        """, chunkName: "=ccai.data")
}
