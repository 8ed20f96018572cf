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
        let fields = results.map { "\"\($0.name)\": \(String(format: "%.4g", $0.value))" }
        print("{" + fields.joined(separator: ", ") + "}")
    } else {
        print("metric".padding(toLength: 24, withPad: " ", startingAt: 0) + "value".padding(toLength: 12, withPad: " ", startingAt: 0)
            + "target".padding(toLength: 10, withPad: " ", startingAt: 0) + "measured")
        for result in results {
            print(result.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(format: "%-12.4g", result.value)
                + result.target.padding(toLength: 10, withPad: " ", startingAt: 0) + result.detail)
        }
    }
} catch {
    FileHandle.standardError.write(Data("ccai-bench: \(error)\n".utf8))
    exit(1)
}
