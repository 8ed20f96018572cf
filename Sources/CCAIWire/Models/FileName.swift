import Foundation

/// The rule for a file's name wherever one crosses a boundary (an attachment's `name`,
/// an upload's `name`, an agent's file): a name is a name, never a path.
///
/// ```swift
/// FileName.problem("receipt.jpg")           // nil
/// FileName.problem("../../etc/passwd")      // "a file name, not a path, expected ..."
/// ```
public enum FileName {
    /// The longest name accepted, in UTF-8 bytes (what Linux file systems allow).
    public static let maximumBytes = 255

    /// What is wrong with `name` as a file name, or nil when it is one: not empty, at most
    /// 255 bytes, no `/` or `\`, not `.` or `..`, no control characters (NUL, newlines, ESC)
    /// and no format characters (a U+202E bidi override makes `exe.pdf` read as `fdp.exe`).
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "a file name expected, got an empty string" }
        if name.utf8.count > maximumBytes { return "a file name of at most \(maximumBytes) bytes expected" }
        if name == "." || name == ".." || name.contains("/") || name.contains("\\") {
            return "a file name, not a path, expected (got '\(TerminalText.escaped(name))')"
        }
        if name.unicodeScalars.contains(where: TerminalText.isInvisible) {
            return "a file name without control or format characters (such as U+202E) expected, got '\(TerminalText.escaped(name))'"
        }
        return nil
    }
}
