import CCAISandbox
import CCAIWire
import Foundation
import Testing

@Suite struct SandboxConfigurationTests {
    private func file(_ source: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func loadsALuaConfiguration() async throws {
        let path = try file("""
            local languages = { "en", "fr" }
            return { company = { name = "Globex", languages = languages, time_zone = "Europe/Paris",
                                 key = "k", secret = "s", jwt_algorithms = { "HS256" } } }
            """)
        let configuration = try await SandboxConfiguration.load(file: path)
        #expect(configuration.company.name == "Globex")
        #expect(configuration.company.languages == ["en", "fr"])
        #expect(configuration.algorithms == [.hs256])
    }

    @Test(arguments: [
        ("return 42", "must return a table, got number"),
        ("return {}", "company is required"),
        ("return { company = { name = 'x', languages = {}, time_zone = 'UTC', key = 'k', secret = 's' } }", "needs at least one language"),
        ("return { company = { name = 'x', languages = {'en'}, time_zone = 'Mars/Olympus', key = 'k', secret = 's' } }", "not an IANA time zone"),
        ("return { company = { name = 'x', languages = {'en'}, time_zone = 'UTC', key = 'k', secret = 's', jwt_algorithms = {'RS256'} } }", "'RS256' is not supported"),
        ("return { company = { name = 5, languages = {'en'}, time_zone = 'UTC', key = 'k', secret = 's' } }", "company.name"),
        ("error('broken config')", "broken config"),
        ("while true do end", "limit exceeded"),  // 50M instructions or 5 s, whichever a loaded machine reaches first
    ])
    func badConfigurationsSayWhatIsWrong(_ source: String, _ message: String) async throws {
        let path = try file(source)
        do {
            _ = try await SandboxConfiguration.load(file: path)
            Issue.record("expected an error")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.message.hasPrefix(path))
        }
    }
}
