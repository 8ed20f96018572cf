import Foundation

/// The active language (seed 000). Set it before a session starts (a change while a chat
/// is in progress is a `conflict`: the pre-session rule); when it was never set, the SDK
/// resolves one among the company's languages: the device language, then its parent
/// dialect, then English.
///
/// ```swift
/// try ccai.languageService?.setLanguageCode("es")
/// ```
public final class LanguageService: @unchecked Sendable {
    private let lock = NSLock()
    private var explicit: String?
    private var enabled: [String] = []
    private let deviceLanguage: String?
    /// The id of the chat in progress, if any (the chat service tells).
    private var sessionInProgress: @Sendable () -> Int? = { nil }

    init(explicit: String?, deviceLanguage: String? = LanguageService.systemLanguage()) {
        self.explicit = explicit
        self.deviceLanguage = deviceLanguage
    }

    /// The language in use.
    public var languageCode: String {
        lock.withLock { LanguageService.resolve(explicit: explicit, device: deviceLanguage, enabled: enabled) }
    }

    /// Makes `code` the language, before a session: while a chat is in progress it is a
    /// `conflict` (changing it then would break the routing, seed 000).
    public func setLanguageCode(_ code: String) throws {
        if let chat = sessionInProgress() {
            throw CCAIError(code: .conflict, message: "the language is chosen before a session starts; chat \(chat) is in progress "
                            + "(end it first)")
        }
        lock.withLock { explicit = code }
    }

    /// How the service learns whether a session is in progress.
    func watchSessions(_ inProgress: @escaping @Sendable () -> Int?) {
        lock.withLock { sessionInProgress = inProgress }
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
