import Foundation

/// The samples of a Prometheus text exposition, read strictly: every line is a `# HELP`,
/// a `# TYPE` or a sample `name{label="value",...} number`, label values unescaped; a
/// line that is none of these is a ``Malformed`` error naming it.
///
/// ```swift
/// let samples = try PrometheusSamples(text)
/// samples.value("ccai_iterations_total")                           // 42
/// samples.value("ccai_checks_ratio", ["check": "answered"])        // 1
/// ```
public struct PrometheusSamples {
    public struct Sample: Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var line: String
        public var description: String { "not a line of the text format: \(line)" }
    }

    public private(set) var samples: [Sample] = []
    /// `# TYPE` lines: family name to type.
    public private(set) var types: [String: String] = [:]

    public init(_ text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { throw Malformed(line: String(line)) }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            samples.append(try Self.sample(String(line)))
        }
    }

    /// The value of the sample `name` whose labels are exactly `labels`.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The samples named `name`.
    public func named(_ name: String) -> [Sample] { samples.filter { $0.name == name } }

    private static func sample(_ line: String) throws -> Sample {
        var scalars = Substring(line).unicodeScalars[...]
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ":")
        }
        let name = String(String.UnicodeScalarView(scalars.prefix(while: isNameScalar)))
        guard !name.isEmpty, !("0"..."9").contains(name.unicodeScalars.first!) else { throw Malformed(line: line) }
        scalars = scalars.dropFirst(name.unicodeScalars.count)
        var labels: [String: String] = [:]
        if scalars.first == "{" {
            scalars = scalars.dropFirst()
            while scalars.first != "}" {
                let label = String(String.UnicodeScalarView(scalars.prefix(while: { isNameScalar($0) && $0 != ":" })))
                scalars = scalars.dropFirst(label.unicodeScalars.count)
                guard !label.isEmpty, scalars.first == "=", scalars.dropFirst().first == "\"", labels[label] == nil else {
                    throw Malformed(line: line)
                }
                scalars = scalars.dropFirst(2)
                var value = String.UnicodeScalarView()
                while let scalar = scalars.first, scalar != "\"" {
                    scalars = scalars.dropFirst()
                    guard scalar == "\\" else { value.append(scalar); continue }
                    guard let escaped = scalars.first else { throw Malformed(line: line) }
                    scalars = scalars.dropFirst()
                    switch escaped {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: throw Malformed(line: line)
                    }
                }
                guard scalars.first == "\"" else { throw Malformed(line: line) }
                scalars = scalars.dropFirst()
                labels[label] = String(value)
                if scalars.first == "," { scalars = scalars.dropFirst() } else if scalars.first != "}" { throw Malformed(line: line) }
            }
            scalars = scalars.dropFirst()
        }
        guard scalars.first == " " else { throw Malformed(line: line) }
        let number = String(String.UnicodeScalarView(scalars.dropFirst()))
        let value: Double? = switch number {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(number)
        }
        guard let value else { throw Malformed(line: line) }
        return Sample(name: name, labels: labels, value: value)
    }
}
