import Foundation

/// `ccai-bench [--json] [--filter TEXT]`: runs the benchmarks (those whose name contains
/// TEXT) and prints the figures.
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

do {
    let results = try await RuntimeBenchmarks().run(filter: filter)
    if json {
        let fields = results.map { result in
            let value = result.value == result.value.rounded() && abs(result.value) < 1e15
                ? String(Int64(result.value)) : String(format: "%.4g", result.value)
            return "\"\(result.name)\": \(value)"
        }
        print("{" + fields.joined(separator: ", ") + "}")
    } else {
        print("metric".padding(toLength: 36, withPad: " ", startingAt: 0) + "value".padding(toLength: 12, withPad: " ", startingAt: 0)
            + "target".padding(toLength: 10, withPad: " ", startingAt: 0) + "measured")
        for result in results {
            print(result.name.padding(toLength: 36, withPad: " ", startingAt: 0)
                + String(format: result.value >= 1_000 ? "%-12.0f" : "%-12.4g", result.value)
                + result.target.padding(toLength: 10, withPad: " ", startingAt: 0) + result.detail)
        }
    }
} catch {
    FileHandle.standardError.write(Data("ccai-bench: \(error)\n".utf8))
    exit(1)
}
