import Foundation

/// The platform's attachment limits (seed 003), in binary megabytes: the SDK checks them
/// before sending, the sandbox enforces them.
public enum AttachmentLimits {
    /// Images: 2 MB (2,097,152 bytes).
    public static let imageBytes = 2 << 20
    /// Videos: 20 MB (20,971,520 bytes); also the largest file an agent sends.
    public static let videoBytes = 20 << 20
    /// A text message: at most 10,000 characters (the project's choice; the seeds name none).
    public static let textCharacters = 10_000

    /// What is wrong with `text` as a chat message's text, or nil (not empty, not too long).
    public static func textProblem(_ text: String) -> String? {
        if text.isEmpty { return "the message text is empty" }
        let count = text.count
        guard count <= textCharacters else {
            return "a text message may be at most \(textCharacters) characters, got \(count)"
        }
        return nil
    }

    /// `2.4 MB` (binary megabytes, as the limits).
    public static func megabytes(_ bytes: Int) -> String {
        let value = Double(bytes) / Double(1 << 20)
        return value == value.rounded() ? "\(Int(value)) MB" : String(format: "%.1f MB", value)
    }
}
