/// Text for HTML and XML (text or attribute values): markup escaped, line breaks and tabs
/// as character references, other control characters (which XML 1.0 cannot hold) dropped.
///
/// ```swift
/// MarkupText.escaped("a < b & \"c\"")   // a &lt; b &amp; &quot;c&quot;
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
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
