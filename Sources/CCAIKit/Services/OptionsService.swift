/// The options the SDK runs with (`CCAI.shared.optionsService`). The seeds name the
/// service without its methods; here it reports the configuration of `initialize` so that
/// code (and scripts) can see what they run against.
///
/// ```swift
/// print(ccai.optionsService?.urlHost ?? "not initialized")
/// ```
public final class OptionsService: Sendable {
    private let options: InitOptions
    private let language: LanguageService

    init(options: InitOptions, language: LanguageService) {
        self.options = options
        self.language = language
    }

    public var key: String { options.key }
    public var urlHost: String { options.urlHost }
    /// The platform's base URL as the SDK resolved it (`https://...`, or `http://` for loopback).
    public var baseURL: String { options.baseURL }
    public var cacheAuthToken: Bool { options.cacheAuthToken }
    /// The language in use (the explicit one, or the resolved one).
    public var languageCode: String { language.languageCode }
}
