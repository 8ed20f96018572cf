import Foundation

/// Text from outside (scripts, plugins, end users, the network) made safe for a log line
/// or a terminal: control characters (C0 and C1, so newlines, ESC and OSC sequences too)
/// become visible escapes, so nothing can fake a log line or drive the terminal.
///
/// ```swift
/// TerminalText.escaped("ok\n12:00:00 ERROR fake\u{1b}]0;x\u{7}")
/// // ok\n12:00:00 ERROR fake\u{1b}]0;x\u{7}   (one line, escapes shown literally)
/// ```
public enum TerminalText {
    /// `text` with every control character as `\n`, `\r`, `\t` or `\u{XX}`; with
    /// `keepingNewlines`, line breaks and tabs stay (for a traceback that is several lines).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && (scalar == "\n" || scalar == "\t")) else {
                result.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default: escape = "\\u{\(String(scalar.value, radix: 16))}"
            }
            result.append(contentsOf: escape.unicodeScalars)
        }
        return String(result)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
