import CCAISandbox
import Foundation

/// An error as a sentence for the terminal: Foundation's file errors name the file and
/// what went wrong instead of dumping `Error Domain=NSCocoaErrorDomain Code=260 ...`.
///
/// ```swift
/// printError(error)   // error: no such file: 'sandbox.lua'
/// ```
enum ErrorText {
    /// Whether the error's text is several lines meant as such: a configuration's list of
    /// problems, each escaped already (``ConfigurationError``).
    static func keepsLines(_ error: Error) -> Bool { error is ConfigurationError }

    static func sentence(_ error: Error) -> String {
        if let cocoa = error as? CocoaError {
            let file = (cocoa.filePath ?? cocoa.url?.path).map { ": '\($0)'" } ?? ""
            switch cocoa.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file\(file)"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied\(file)"
            case .fileReadCorruptFile, .fileReadInapplicableStringEncoding: return "the file cannot be read as text\(file)"
            case .fileWriteOutOfSpace: return "no space left on the device\(file)"
            default: return cocoa.localizedDescription + file
            }
        }
        let described = String(describing: error)
        if described.hasPrefix("Error Domain=") { return (error as NSError).localizedDescription }
        return described
    }
}
