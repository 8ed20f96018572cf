/// Replaces sensitive data with placeholders before an agent sees a message (seed 001,
/// automatic redaction): e-mail addresses, US social security numbers, card numbers that
/// pass the Luhn check, and phone numbers.
///
/// Three scans over the text's Unicode scalars, each linear in its length whatever the
/// text (no backtracking), in this order, each over the result of the one before:
/// - e-mail addresses, `[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}` (leftmost, the
///   longest domain), become `[email]`;
/// - social security numbers, `\b\d{3}-\d{2}-\d{4}\b` (a boundary as ICU's default: a word
///   character on one side only, combining marks and format characters belonging to the
///   character before them), become `[ssn]`;
/// - runs of digits, `\+?\(?\d[\d\s().-]{6,}\d`: 13 to 19 digits that pass Luhn become
///   `[card]`, 10 to 15 digits `[phone]`; other runs stay.
/// `\d` is any decimal digit (Unicode `Nd`), `\s` any white space. The sandbox redacts each
/// message once, when it is stored (``Conversation``).
///
/// ```swift
/// Redactor.redact("call 415-555-3423")   // "call [phone]"
/// ```
public enum Redactor {
    public static func redact(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: { $0 == "@" || $0.isDecimalDigit }) else { return text }
        let redacted = replaceDigitRuns(in: replaceSocialSecurityNumbers(in: replaceEmailAddresses(in: scalars)))
        var result = String.UnicodeScalarView()
        result.append(contentsOf: redacted)
        return String(result)
    }

    /// `[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`. Every match has one `@`: its local
    /// part is the run of local characters before it (from the end of the last match), its
    /// domain runs to the last dot of the domain characters after it that two letters
    /// follow, then through those letters. The domain characters after an `@` end before
    /// the next `@`, so no character is looked at more than twice.
    private static func replaceEmailAddresses(in text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        var copied = 0
        var localStart: Int?
        var index = 0
        while index < text.count {
            let scalar = text[index]
            if scalar.isEmailLocal {
                if localStart == nil { localStart = index }
                index += 1
                continue
            }
            if scalar == "@", let start = localStart, let end = emailDomainEnd(in: text, after: index) {
                output += text[copied..<start]
                output += "[email]".unicodeScalars
                copied = end
                localStart = nil
                index = end
                continue
            }
            localStart = nil
            index += 1
        }
        output += text[copied...]
        return output
    }

    /// Where the e-mail address whose `@` is at `at` ends, if it has a domain.
    private static func emailDomainEnd(in text: [Unicode.Scalar], after at: Int) -> Int? {
        var end = at + 1
        while end < text.count, text[end].isEmailDomain { end += 1 }
        var dot = end - 3
        while dot >= at + 2 {
            if text[dot] == ".", text[dot + 1].isASCIILetter, text[dot + 2].isASCIILetter {
                var last = dot + 3
                while last < end, text[last].isASCIILetter { last += 1 }
                return last
            }
            dot -= 1
        }
        return nil
    }

    /// `\b\d{3}-\d{2}-\d{4}\b`, tried at each character that follows no word character.
    private static func replaceSocialSecurityNumbers(in text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let shape: [Bool?] = [true, true, true, nil, true, true, nil, true, true, true, true]
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        var afterWord = false
        var index = 0
        while index < text.count {
            let end = index + shape.count
            if !afterWord, end <= text.count,
                zip(shape, text[index..<end]).allSatisfy({ expected, scalar in expected == nil ? scalar == "-" : scalar.isDecimalDigit }),
                end == text.count || !(text[end].isWordCharacter || text[end].isCombining)
            {
                output += "[ssn]".unicodeScalars
                afterWord = true
                index = end
                continue
            }
            let scalar = text[index]
            if !scalar.isCombining { afterWord = scalar.isWordCharacter }
            output.append(scalar)
            index += 1
        }
        return output
    }

    /// `\+?\(?\d[\d\s().-]{6,}\d`: from its first digit, a match runs to the last digit of
    /// the run of run characters after it, if that digit is at least 7 characters on. The
    /// run after a digit is the same for every digit in it, so it is measured once.
    private static func replaceDigitRuns(in text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        var measured: (start: Int, end: Int, lastDigit: Int?)?
        var index = 0
        while index < text.count {
            guard let first = firstDigit(in: text, at: index) else {
                output.append(text[index])
                index += 1
                continue
            }
            if measured.map({ !($0.start...$0.end).contains(first + 1) }) ?? true {
                var end = first + 1, lastDigit: Int?
                while end < text.count, text[end].isDigitRunCharacter {
                    if text[end].isDecimalDigit { lastDigit = end }
                    end += 1
                }
                measured = (first + 1, end, lastDigit)
            }
            guard let last = measured?.lastDigit, last >= first + 7 else {
                output.append(text[index])
                index += 1
                continue
            }
            let run = text[index...last]
            let digits = run.compactMap { $0.isDecimalDigit ? Character($0).wholeNumberValue : nil }
            if (13...19).contains(digits.count), passesLuhn(digits) {
                output += "[card]".unicodeScalars
            } else if (10...15).contains(digits.count) {
                output += "[phone]".unicodeScalars
            } else {
                output += run
            }
            index = last + 1
        }
        return output
    }

    /// The first digit of a digit run starting at `index` (after `+`, `(` or `+(`), if one can.
    private static func firstDigit(in text: [Unicode.Scalar], at index: Int) -> Int? {
        func isDigit(_ offset: Int) -> Bool { index + offset < text.count && text[index + offset].isDecimalDigit }
        func isScalar(_ offset: Int, _ scalar: Unicode.Scalar) -> Bool { index + offset < text.count && text[index + offset] == scalar }
        if isDigit(0) { return index }
        if isScalar(0, "("), isDigit(1) { return index + 1 }
        guard isScalar(0, "+") else { return nil }
        if isDigit(1) { return index + 1 }
        return isScalar(1, "(") && isDigit(2) ? index + 2 : nil
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

/// The character classes of the redaction patterns.
private extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }

    var isASCIIDigit: Bool { ("0"..."9").contains(self) }

    /// `[A-Za-z0-9._%+-]`
    var isEmailLocal: Bool { isASCIILetter || isASCIIDigit || "._%+-".unicodeScalars.contains(self) }

    /// `[A-Za-z0-9.-]`
    var isEmailDomain: Bool { isASCIILetter || isASCIIDigit || self == "." || self == "-" }

    /// `\d`: a decimal digit of any script.
    var isDecimalDigit: Bool { isASCIIDigit || (value > 0x7F && properties.generalCategory == .decimalNumber) }

    /// `[\d\s().-]`
    var isDigitRunCharacter: Bool { isDecimalDigit || properties.isWhitespace || "().-".unicodeScalars.contains(self) }

    /// `\w` as ICU's `\b` sees it: letters, marks, decimal digits, connector punctuation,
    /// the zero-width joiners.
    var isWordCharacter: Bool {
        if isASCIILetter || isASCIIDigit || self == "_" { return true }
        guard value > 0x7F else { return false }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return properties.isAlphabetic || value == 0x200C || value == 0x200D
        }
    }

    /// What ICU's `\b` treats as part of the character before it.
    var isCombining: Bool { value > 0x7F && (properties.isGraphemeExtend || properties.generalCategory == .format) }
}
