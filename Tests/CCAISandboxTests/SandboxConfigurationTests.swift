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

    /// Issue 33: a wrong optional field does not hide a cross-reference's problem (a queue
    /// naming a virtual agent that does not exist); each problem is listed once.
    @Test func aWrongFieldDoesNotHideAnUnknownVirtualAgent() async throws {
        let path = try file("""
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = { virtual_agent = "bott" } } } },
                     agents = { { name = "Ava", menus = { 1 }, max_chats = "two" } },
                     virtual_agents = { bot = {} } }
            """)
        let error = await #expect(throws: ConfigurationError.self) { try await SandboxConfiguration.load(file: path) }
        let problems = error?.problems ?? []
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains("agents[1].max_chats: integer expected, got string"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("menus[id 1].channels.chat.virtual_agent: there is no virtual agent 'bott'") }, "\(problems)")
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

    /// No Swift text reaches a user: a value an enumeration does not have lists the ones it
    /// has, and an option of the wrong shape says which shapes it takes.
    @Test func mistakesAreSaidInTheConfigurationsWords() async throws {
        func problem(_ fields: String) async throws -> String {
            do {
                _ = try await LuaConfigurations.configuration(fields)
                return "(no error)"
            } catch let error as ConfigurationError {
                return error.message
            }
        }
        let stars = try await problem("surveys = { s = { questions = { { id = 1, type = 'stars', text = 'How?' } } } }")
        #expect(stars.contains("surveys.s.questions[1].type: 'stars' is not one of 'csat', 'star_rating', 'free_text', 'enumeration', 'numeric_scale'"), "\(stars)")
        #expect(!stars.contains("Cannot initialize") && !stars.contains("SurveyQuestionType"), "\(stars)")
        let number = try await problem("""
            custom_forms = { { id = 1, name = 'f', title = 'T', questions = { { id = 1, type = 'radio', text = 'P', options = { 7 } } } } }
            """)
        #expect(number.contains("custom_forms[1].questions[1].options[1]: an option is a string") && number.contains("{ value = "),
                "\(number)")
    }

    /// Survey options and custom-form options take the same shapes: a plain string, or
    /// `{ value, label }`; a survey's end users get the values.
    @Test func optionsAreStringsOrValuesWithLabels() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            surveys = { s = { id = 1, questions = { { id = 1, type = 'enumeration', text = 'Which?',
                                                       options = { 'invoice', { value = 'refund', label = 'A refund' } } } } } },
            custom_forms = { { id = 10, name = 'f', title = 'T', questions = {
              { id = 1, type = 'dropdown', text = 'P', options = { 'phone', { value = 'tablet', label = 'Tablet' } } } } } }
            """)
        #expect(configuration.survey(id: 1, language: "en")?.questions.first?.options == ["invoice", "refund"])
        #expect(configuration.customForms?.first?.questions.first?.options
                == [CustomFormQuestionOption(value: "phone"), CustomFormQuestionOption(value: "tablet", label: "Tablet")])
    }
}
