import Foundation

/// "Did you mean ...?" for a mistyped name: the closest known name within a small edit
/// distance, for the errors of configurations and plugin specs.
///
/// ```swift
/// Suggestion.closest(to: "deflecton", among: ["deflection", "forms"])   // "deflection"
/// Suggestion.didYouMean("chanels", among: ["channels"])                  // " (did you mean 'channels'?)"
/// ```
public enum Suggestion {
    /// The known name nearest to `name` (at most a third of its length in edits, at least
    /// 1), or nil.
    public static func closest(to name: String, among known: some Sequence<String>) -> String? {
        let limit = max(1, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `" (did you mean 'x'?)"`, or an empty string when nothing is close.
    public static func didYouMean(_ name: String, among known: some Sequence<String>) -> String {
        closest(to: name, among: known).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Levenshtein distance (insertions, deletions, substitutions).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
