import Foundation

/// The `Content-Disposition` header of a download (RFC 6266): written by the sandbox,
/// read by the SDK. The name travels as `filename*=UTF-8''...` (percent-encoded, so no
/// byte of it can end the header or start another) with a plain-ASCII `filename` fallback.
///
/// ```swift
/// ContentDisposition.attachment(named: "résumé.pdf")
/// // attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf
/// ContentDisposition.fileName(of: header)   // "résumé.pdf"
/// ```
public enum ContentDisposition {
    /// Characters left as they are in `filename*` (RFC 5987 attr-char).
    private static let attributeCharacters = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")

    /// The header value for a file called `name`.
    public static func attachment(named name: String) -> String {
        let fallback = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\"
                ? Character(scalar) : "_"
        })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: attributeCharacters) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }

    /// The file name a header gives: `filename*` when present, else `filename`; nil when
    /// there is none or it is not a file name (``FileName``).
    public static func fileName(of header: String?) -> String? {
        guard let header else { return nil }
        var plain: String?
        var extended: String?
        for parameter in header.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if key == "filename*" {
                let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, pieces[0].lowercased() == "utf-8" { extended = String(pieces[2]).removingPercentEncoding }
            } else if key == "filename" {
                plain = value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        guard let name = extended ?? plain, FileName.problem(name) == nil else { return nil }
        return name
    }
}
