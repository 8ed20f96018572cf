import Foundation

/// The active language (seed 000). Set it before a session starts; when it was never set,
/// the SDK resolves one among the company's languages: the device language, then its
/// parent dialect, then English.
///
/// ```swift
/// ccai.languageService?.languageCode = "es"
/// ```
public final class LanguageService: @unchecked Sendable {
    private let lock = NSLock()
    private var explicit: String?
    private var enabled: [String] = []
    private let deviceLanguage: String?

    init(explicit: String?, deviceLanguage: String? = LanguageService.systemLanguage()) {
        self.explicit = explicit
        self.deviceLanguage = deviceLanguage
    }

    /// The language in use; setting it makes it explicit.
    public var languageCode: String {
        get {
            lock.withLock {
                LanguageService.resolve(explicit: explicit, device: deviceLanguage, enabled: enabled)
            }
        }
        set { lock.withLock { explicit = newValue } }
    }

    /// Tells the service which languages the company enabled (from the company settings).
    func updateEnabledLanguages(_ languages: [String]) {
        lock.withLock { enabled = languages }
    }

    /// The resolution rule: explicit, else the device language if enabled, else its parent
    /// dialect if enabled, else English. With no list of enabled languages yet, the device
    /// language is taken as it is.
    public static func resolve(explicit: String?, device: String?, enabled: [String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let device, !device.isEmpty {
            if enabled.isEmpty { return device }
            if let exact = enabled.first(where: { $0.caseInsensitiveCompare(device) == .orderedSame }) { return exact }
            let parent = device.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? device
            if let base = enabled.first(where: { $0.caseInsensitiveCompare(parent) == .orderedSame }) { return base }
        }
        return "en"
    }

    /// The device language from the POSIX locale (`es_CU.UTF-8` -> `es-CU`), if any.
    static func systemLanguage(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty, value != "C", value != "POSIX",
                !value.hasPrefix("C.")
            else { continue }
            let language = value.split(separator: ".").first.map(String.init) ?? value
            return language.replacingOccurrences(of: "_", with: "-")
        }
        return nil
    }
}
