import CCAIWire

/// Text for HTML and XML (text or attribute values): markup escaped, line breaks and tabs
/// as character references, other C0 control characters (which XML 1.0 cannot hold)
/// dropped, and the other invisible characters (C1 controls, bidi overrides and isolates
/// such as U+202E, zero-width characters, U+2028/U+2029: ``TerminalText/isInvisible(_:)``)
/// shown as `\u{...}`, so a name or an error from a script cannot make a report read in
/// another order than it is (a character reference would still be obeyed by the viewer).
///
/// ```swift
/// MarkupText.escaped("a < b & \"c\"")          // a &lt; b &amp; &quot;c&quot;
/// MarkupText.escaped("invoice\u{202E}fdp.exe")  // invoice\u{202e}fdp.exe
/// ```
enum MarkupText {
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            case _ where TerminalText.isInvisible(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
