import CCAIWire
import Foundation

/// Writes a line to standard error; control characters from scripts are escaped (with
/// `lines`, the line breaks of a traceback stay).
func printError(_ text: String, lines: Bool = false) {
    FileHandle.standardError.write(Data((TerminalText.escaped(text, keepingNewlines: lines) + "\n").utf8))
}

/// Prints `error: ` and the error as a sentence (``ErrorText``), on several lines when
/// it is a list of problems.
func printError(_ error: Error) {
    printError("error: " + ErrorText.sentence(error), lines: ErrorText.keepsLines(error))
}
