import Foundation

/// The help texts, rendered from the declarations (``CommandSpec``, ``OptionSpec``): a
/// command's usage lines, its prose, its options aligned in a column with their help
/// wrapped, and the command list of `ccai help`.
enum HelpText {
    /// The width option help is wrapped to.
    static let width = 88
    /// Labels longer than this put their help on the next line instead of widening the column.
    static let longestInlineLabel = 24

    /// The help of a topic: one command (`run`) or the commands of a group (`sandbox
    /// serve`, `check`, `show`), each one's prose named by its last word.
    static func text(for commands: [CommandSpec]) -> String {
        let usage = commands.enumerated().map { ($0.offset == 0 ? "Usage: ccai " : "       ccai ") + $0.element.synopsis }
        var sections = [usage.joined(separator: "\n")]
        sections += commands.map { commands.count == 1 ? $0.discussion : "\($0.path.last!): \($0.discussion)" }
        let withOptions = commands.filter { !$0.options.isEmpty }
        for command in withOptions {
            let heading = withOptions.count == 1 ? "Options:" : "Options of 'ccai \(command.name)':"
            sections.append(heading + "\n" + rows(command.options.flatMap(rows(of:))))
        }
        sections += commands.map(\.epilogue)
        return sections.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// The help rows of `option`: one per documented form, `-q, --quiet`, `--seed N`.
    static func rows(of option: OptionSpec) -> [(label: String, help: String)] {
        option.forms.map { form in
            ((option.aliases + [option.name]).joined(separator: ", ")
                + (form.value.map { option.valueIsOptional ? " [\($0)]" : " " + $0 } ?? ""), form.help)
        }
    }

    /// `rows` as a two-column list: labels indented by two, helps aligned past the
    /// longest label that fits and wrapped to ``width``.
    static func rows(_ rows: [(label: String, help: String)]) -> String {
        let labelWidth = rows.map(\.label.count).filter { $0 <= longestInlineLabel }.max() ?? longestInlineLabel
        let column = 2 + labelWidth + 2
        let indent = String(repeating: " ", count: column)
        return rows.map { row in
            let lines = wrap(row.help, width: width - column)
            let label = "  " + row.label
            guard row.label.count <= longestInlineLabel else { return ([label] + lines.map { indent + $0 }).joined(separator: "\n") }
            let first = label.padding(toLength: column, withPad: " ", startingAt: 0) + (lines.first ?? "")
            return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text`'s words in lines of at most `width` characters (a longer word has its own line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        return line.isEmpty ? lines : lines + [line]
    }
}
