import Foundation

/// Replaces sensitive data with placeholders before an agent sees a message (seed 001,
/// automatic redaction): e-mail addresses, US social security numbers, card numbers that
/// pass the Luhn check, and phone numbers.
///
/// ```swift
/// Redactor.redact("call 415-555-3423")   // "call [phone]"
/// ```
public enum Redactor {
    private static let email = try! NSRegularExpression(pattern: #"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"#)
    private static let ssn = try! NSRegularExpression(pattern: #"\b\d{3}-\d{2}-\d{4}\b"#)
    private static let digitRun = try! NSRegularExpression(pattern: #"\+?\(?\d[\d\s().-]{6,}\d"#)

    public static func redact(_ text: String) -> String {
        var result = replace(email, in: text, with: "[email]")
        result = replace(ssn, in: result, with: "[ssn]")
        return replaceDigitRuns(in: result)
    }

    private static func replace(_ pattern: NSRegularExpression, in text: String, with placeholder: String) -> String {
        pattern.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: placeholder)
    }

    /// Runs of digits (with spaces, dashes, dots, parentheses): 13 to 19 digits that pass
    /// Luhn are cards; 10 to 15 digits are phone numbers; others stay.
    private static func replaceDigitRuns(in text: String) -> String {
        var result = text
        for match in digitRun.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            guard let range = Range(match.range, in: result) else { continue }
            let digits = result[range].compactMap(\.wholeNumberValue)
            if (13...19).contains(digits.count), passesLuhn(digits) {
                result.replaceSubrange(range, with: "[card]")
            } else if (10...15).contains(digits.count) {
                result.replaceSubrange(range, with: "[phone]")
            }
        }
        return result
    }

    static func passesLuhn(_ digits: [Int]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            if offset % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }
}
