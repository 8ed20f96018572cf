import Foundation

/// Text from outside (scripts, plugins, end users, the network) made safe for a log line
/// or a terminal: control characters (C0 and C1, so newlines, ESC and OSC sequences too)
/// and invisible format characters (bidi overrides such as U+202E, zero-width characters,
/// the line and paragraph separators) become visible escapes, so nothing can fake a log
/// line, drive the terminal or make text read in another order than it is.
///
/// ```swift
/// TerminalText.escaped("ok\n12:00:00 ERROR fake\u{1b}]0;x\u{7}")
/// // ok\n12:00:00 ERROR fake\u{1b}]0;x\u{7}   (one line, escapes shown literally)
/// TerminalText.escaped("invoice\u{202e}fdp.exe")   // invoice\u{202e}fdp.exe
/// ```
public enum TerminalText {
    /// `text` with every control and format character as `\n`, `\r`, `\t` or `\u{XX}`;
    /// with `keepingNewlines`, line breaks and tabs stay (for a traceback that is several lines).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isInvisible) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isInvisible(scalar), !(keepingNewlines && (scalar == "\n" || scalar == "\t")) else {
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

    /// Whether `scalar` changes how text around it is shown without being seen itself: a
    /// control character (general category Cc), a format character (Cf: bidi overrides and
    /// isolates, zero-width joiners and spaces, the byte order mark) or a line or paragraph
    /// separator (U+2028, U+2029). Names refuse them (``FileName``, ``FieldLimits``).
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
