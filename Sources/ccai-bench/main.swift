import Foundation

/// `ccai-bench [--json] [--filter TEXT]`: runs the benchmarks (those whose name contains
/// TEXT) and prints the figures. A figure that cannot be measured is printed as missing
/// (`null` in `--json`, its reason under `"missing"`), the others all the same, and the
/// exit status is then 1.
var json = false
var filter: String?
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let argument = arguments.popFirst() {
    switch argument {
    case "--json": json = true
    case "--filter" where !arguments.isEmpty: filter = arguments.popFirst()
    default:
        FileHandle.standardError.write(Data("usage: ccai-bench [--json] [--filter TEXT] (unexpected '\(argument)')\n".utf8))
        exit(2)
    }
}

/// A JSON number for `value`: an integer when it is one, else four significant digits.
func jsonNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.4g", value)
}

/// A JSON string literal of `text`.
func jsonString(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
}

let results = await RuntimeBenchmarks().run(filter: filter)
let missing = results.filter { $0.missingReason != nil }
if json {
    // A missing figure is null, and "missing" says why: the other figures stay readable.
    let fields = results.map { "\(jsonString($0.name)): " + ($0.value.map(jsonNumber) ?? "null") }
    let reasons = missing.map { "\(jsonString($0.name)): \(jsonString($0.missingReason ?? ""))" }
    print("{" + (fields + ["\"missing\": {" + reasons.joined(separator: ", ") + "}"]).joined(separator: ", ") + "}")
} else {
    print("metric".padding(toLength: 36, withPad: " ", startingAt: 0) + "value".padding(toLength: 12, withPad: " ", startingAt: 0)
        + "target".padding(toLength: 10, withPad: " ", startingAt: 0) + "measured")
    for result in results {
        let value = result.value.map { String(format: $0 >= 1_000 ? "%-12.0f" : "%-12.4g", $0) } ?? "-".padding(toLength: 12, withPad: " ", startingAt: 0)
        print(result.name.padding(toLength: 36, withPad: " ", startingAt: 0) + value
            + result.target.padding(toLength: 10, withPad: " ", startingAt: 0) + result.detail)
    }
}
for result in missing {
    FileHandle.standardError.write(Data("ccai-bench: \(result.name) is missing: \(result.missingReason ?? "")\n".utf8))
}
exit(missing.isEmpty ? 0 : 1)
