import Foundation
import LuaRuntime

/// `ccai.metrics.trend|counter|rate|gauge(name)`: declares a metric of the run (k6's
/// custom metrics) and returns an object whose `:add(value, tags)` records a sample. A
/// trend keeps a digest of its values, a counter adds them, a rate counts the true ones
/// (`true`, or a number other than 0), a gauge keeps the last. `tags` (a table of
/// strings, at most 16) make sub-metrics that thresholds name as `name{tag:value}`.
///
/// ```lua
/// local wait = ccai.metrics.trend("queue_wait_seconds")
/// wait:add(4.2, { queue = "billing" })
/// -- options.thresholds = { ["queue_wait_seconds{queue:billing}"] = "p(80) < 20" }
/// ```
enum MetricBindings {
    static let kinds: [MetricKind] = [.trend, .counter, .rate, .gauge]

    static func module(_ metrics: ScenarioMetrics?) -> LuaModule {
        var module = LuaModule(name: "ccai.metrics")
        for kind in kinds {
            module.function(kind.rawValue, LuaSignature(
                "Declares a \(kind.rawValue) metric of the run; returns it, to add samples with :add(value, tags).",
                parameters: ["name: string"], returns: ["ccai.Metric"]
            )) { call in
                let name = try call.string(1, "name")
                if let problem = metrics?.declare(name, kind: kind) ?? (ScenarioMetrics.isValidName(name) ? nil : "bad name") {
                    throw call.argumentError(1, "name", problem)
                }
                return call.returning(.string(name))
            }
        }
        module.decorate(with: decorator) { [$0.makeFunction("ccai.Metric.add", adder(metrics))] }
        return module
    }

    /// The samples' side: `add(name, value, tags)`, which the objects' `:add` calls.
    static func adder(_ metrics: ScenarioMetrics?) -> LuaFunctionBody {
        { call in
            let name = try call.string(1, "name")
            let value: Double
            if let flag = try? call.optionalBoolean(2) {
                value = flag ? 1 : 0
            } else {
                value = try call.number(2, "value")
                guard value.isFinite else { throw call.argumentError(2, "value", "a finite number expected") }
            }
            var tags: [String: String] = [:]
            if !call.isNil(3) {
                let table = try call.table(3, "tags")
                guard let fields = LuaValue.table(table).dictionaryValue, fields.count <= ScenarioMetrics.tagsPerSample else {
                    throw call.argumentError(3, "tags", "a table of at most \(ScenarioMetrics.tagsPerSample) named strings expected")
                }
                for (key, tag) in fields {
                    guard let text = tag.stringValue, text.utf8.count <= 128, key.utf8.count <= 128,
                        !key.contains(":"), !key.contains(","), !text.contains(",")
                    else {
                        throw call.argumentError(3, "tags", "tags.\(key): a string of at most 128 bytes without ',' expected")
                    }
                    tags[key] = text
                }
            }
            metrics?.add(name, value: value, tags: tags)
            return .none
        }
    }

    static let decorator = LuaDecorator("""
        local metrics, add = ...
        local Metric = {}
        Metric.__index = Metric
        function Metric:add(value, tags) add(self.name, value, tags) end
        for _, kind in ipairs({ "trend", "counter", "rate", "gauge" }) do
          local declare = metrics[kind]
          metrics[kind] = function(name)
            return setmetatable({ name = declare(name), kind = kind }, Metric)
          end
        end
        """, chunkName: "=ccai.metrics")
}
