import Foundation

/// Writes Prometheus's text exposition format (version 0.0.4): metric families, each with
/// its `# HELP` and `# TYPE` lines and then its samples. Names and label names that are
/// not valid are made so (every other character becomes `_`); label values and help
/// texts are escaped, so whatever a script or a configuration named cannot break a line.
///
/// ```swift
/// var text = PrometheusText()
/// text.family("ccai_iterations_total", .counter, help: "iterations run")
/// text.sample("ccai_iterations_total", labels: [("scenario", "browse")], 42)
/// text.body   // "# HELP ccai_iterations_total iterations run\n# TYPE ... counter\n..."
/// ```
public struct PrometheusText: Sendable {
    /// A family's type, as the `# TYPE` line spells it.
    public enum FamilyType: String, Sendable {
        case counter, gauge, summary, histogram
    }

    /// The media type the format is served with.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text written so far.
    public private(set) var body = ""

    public init() {}

    /// Starts the family `name`: its help and type lines.
    public mutating func family(_ name: String, _ type: FamilyType, help: String) {
        let name = Self.metricName(name)
        body += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(type.rawValue)\n"
    }

    /// One sample of the family started last (`name` may carry its suffix: `_sum`,
    /// `_count`, `_bucket`); labels in the order given.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Double) {
        body += Self.metricName(name)
        if !labels.isEmpty {
            body += "{"
            for (index, (label, text)) in labels.enumerated() {
                if index > 0 { body += "," }
                body += Self.labelName(label) + "=\"" + Self.escapedLabelValue(text) + "\""
            }
            body += "}"
        }
        body += " " + Self.number(value) + "\n"
    }

    /// A metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, other characters replaced by `_`.
    public static func metricName(_ name: String) -> String {
        sanitized(name, allowingColon: true)
    }

    /// A label name: `[a-zA-Z_][a-zA-Z0-9_]*`, other characters replaced by `_`; names
    /// Prometheus keeps for itself (`__` first) get a `tag` prefix.
    public static func labelName(_ name: String) -> String {
        let label = sanitized(name, allowingColon: false)
        return label.hasPrefix("__") ? "tag" + label : label
    }

    /// A label value with `\`, `"` and line feeds escaped.
    public static func escapedLabelValue(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A help text with `\` and line feeds escaped.
    static func escapedHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value as the format spells it: `NaN`, `+Inf`, `-Inf`, integers without a
    /// fraction, else the shortest decimal that reads back the same.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func sanitized(_ name: String, allowingColon: Bool) -> String {
        var result = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            let letter = scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
                || (allowingColon && scalar == ":"))
            let digit = ("0"..."9").contains(scalar)
            result += letter || (digit && index > 0) ? String(scalar) : "_"
        }
        return result.isEmpty ? "_" : result
    }
}
