import Foundation

/// The largest value the platform keeps of each field an end user sends, said once: the
/// sandbox refuses a longer one with a 400 naming the field and its limit, and
/// docs/openapi.yaml documents the same numbers. Sizes are UTF-8 bytes (a character may
/// be many bytes: `"e"` followed by a thousand combining accents is one character), on
/// top of any limit in characters (``AttachmentLimits/textCharacters``).
///
/// ```swift
/// FieldLimits.nameProblem("name", "Ana")                      // nil
/// FieldLimits.nameProblem("name", "Ana\u{202E}")              // "the field 'name' must not contain ..."
/// FieldLimits.problem("payload", size: 20_000, limit: FieldLimits.chatEventPayloadBytes)
/// // "the field 'payload' may be at most 16384 bytes, got 20000"
/// ```
public enum FieldLimits {
    /// An end user's display name (`name`).
    public static let nameBytes = 256
    /// An e-mail address (`email`): the longest address SMTP carries.
    public static let emailBytes = 254
    /// A phone number (`phone`).
    public static let phoneBytes = 64
    /// An end user's `identifier`.
    public static let identifierBytes = 256
    /// A session's custom data (`custom_data`, the unsigned and the signed part each, as JSON).
    public static let customDataBytes = 16 << 10
    /// A chat event's `name`.
    public static let chatEventNameBytes = 128
    /// A chat event's `payload`, as JSON.
    public static let chatEventPayloadBytes = 16 << 10
    /// A message's `client_message_id`.
    public static let clientMessageIDBytes = 128
    /// A text an end user writes: a message, a preview, a smart action's text, a free-text
    /// answer, feedback (10,000 characters of at most 4 bytes each).
    public static let textBytes = 4 * AttachmentLimits.textCharacters
    /// Screen-share data an end user posts in a chat (`response`, as JSON).
    public static let screenShareBytes = 4 << 10

    /// The refusal of a value of `size` bytes in `field` when it is over `limit`, or nil.
    public static func problem(_ field: String, size: Int, limit: Int) -> String? {
        size > limit ? "the field '\(field)' may be at most \(limit) bytes, got \(size)" : nil
    }

    /// The refusal of `value` as the text of `field`: over `limit` bytes.
    public static func problem(_ field: String, _ value: String?, limit: Int = textBytes) -> String? {
        value.flatMap { problem(field, size: $0.utf8.count, limit: limit) }
    }

    /// The refusal of `value` as a name (a display name, an e-mail address, a phone
    /// number, an identifier): over its limit, or with a control or format character
    /// (NUL, a newline, a U+202E bidi override: ``TerminalText/isInvisible(_:)``).
    public static func nameProblem(_ field: String, _ value: String?) -> String? {
        guard let value else { return nil }
        if let problem = problem(field, value, limit: nameLimits[field] ?? nameBytes) { return problem }
        guard !value.unicodeScalars.contains(where: TerminalText.isInvisible) else {
            return "the field '\(field)' must not contain control or format characters (NUL, newlines, U+202E), "
                + "got '\(TerminalText.escaped(value))'"
        }
        return nil
    }

    /// The limit of each name field.
    private static let nameLimits = ["name": nameBytes, "email": emailBytes, "phone": phoneBytes, "identifier": identifierBytes]
}
