import CCAIWire

/// Company-level settings (seed 004).
public final class CompanyService: Sendable {
    private let api: APIClient
    private let language: LanguageService

    init(api: APIClient, language: LanguageService) {
        self.api = api
        self.language = language
    }

    /// The company's display name, support e-mail, languages, time zone and flags. Its
    /// languages become the ones the language service resolves among.
    public func get() async throws -> CompanyResponse {
        let company = try await api.send(Endpoints.company, as: CompanyResponse.self)
        language.updateEnabledLanguages(company.languages)
        return company
    }
}
