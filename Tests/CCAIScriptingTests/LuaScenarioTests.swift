import Foundation
import TestSupport
import Testing

/// The Lua scenarios of Tests/Scenarios, run in this process (``LuaScenario``): a failing
/// `assert` shows its message and traceback in the report. CLITests runs a few through
/// the real binary for its arguments, exit status and output.
@Suite struct LuaScenarioTests {
    @Test(arguments: ["tasks.lua", "sandbox.lua", "modules.lua", "menus.lua", "chat.lua", "conversation.lua",
                      "fuzz_arguments.lua", "company.lua", "apps.lua", "apps_media.lua"])
    func scenariosPassAgainstTheBuiltInCompany(_ name: String) async throws {
        let outcome = try await LuaScenario(name, environment: ["NAME": "Ana"]).run()
        outcome.expectPassed("scenario passed")
    }

    @Test func agentScriptsDriveTheSandboxAgents() async throws {
        let outcome = try await LuaScenario("scripted_agents.lua", sandbox: "agents/sandbox.lua").run()
        outcome.expectPassed("scripted agents scenario passed")
        #expect(outcome.everything.contains("agent Oops"), "a failing agent script is logged with the agent's name")
        #expect(outcome.everything.contains("broken.lua:8: the agent script broke on purpose"))
    }

    /// The calls example: consent, waiting, a scripted agent's hold, an interruption,
    /// resume, hang up, and the refusals on the way.
    @Test func theCallsExampleRunsEveryStepOfACall() async throws {
        let outcome = try await LuaScenario("../../examples/calls/scenario.lua", sandbox: "../../examples/calls/sandbox.lua").run()
        outcome.expectPassed("calls scenario passed")
        #expect(outcome.everything.contains("connected, recorded: true"), "the agent's script saw the connected call")
        #expect(outcome.everything.contains("statuses=waiting,connecting,connected,on_hold,connected,interrupted,connected,ended"),
                "\(outcome.everything)")
    }

    /// The voice virtual agent example: it answers first, `call:can_escalate` shows the
    /// button, and the caller's escalation brings a person.
    @Test func theVirtualAgentExampleEscalatesACallToAPerson() async throws {
        let outcome = try await LuaScenario("../../examples/calls/virtual_agent.lua", sandbox: "../../examples/calls/sandbox.lua").run()
        outcome.expectPassed("virtual agent scenario passed")
        #expect(outcome.everything.contains(#"participants="joined Robin, left Robin, joined Rae""#), "\(outcome.everything)")
        #expect(outcome.everything.contains(#"call="ccai.Call: 0x"#), "a call table names its class: \(outcome.everything)")
    }

    @Test func everyCallTableHasItsMethods() async throws {
        try await LuaScenario("call_methods.lua", sandbox: "../../examples/calls/sandbox.lua").run()
            .expectPassed("call methods scenario passed")
    }

    @Test func theVoicemailExampleLeavesMessagesAndTakesTheOfferedDeflection() async throws {
        let outcome = try await LuaScenario("../../examples/calls/voicemail.lua", sandbox: "../../examples/calls/sandbox.lua").run()
        outcome.expectPassed("voicemail scenario passed")
        #expect(outcome.everything.contains("audible message: All our agents are busy."), "the SDK logs what it plays: \(outcome.everything)")
        #expect(outcome.everything.contains("audio_url=https://cdn.acme.test/busy.mp3"))
    }

    /// An agent's reply while the app is in the background comes as a push to the device's
    /// token (`push`), and the reply itself once the app is back (seed 004).
    @Test func anAgentsReplyWhileAwayComesAsAPush() async throws {
        try await LuaScenario("push.lua", inProcess: true).run().expectPassed("push scenario passed")
    }

    /// The long-waits example: a plugin's deflection hook, asked for a call, offers a
    /// callback once the line has a wait, and the customer books it.
    @Test func aPluginDeflectsALongWaitToACallback() async throws {
        let outcome = try await LuaScenario("../../examples/long_waits/scenario.lua", sandbox: "../../examples/long_waits/sandbox.lua").run()
        outcome.expectPassed("long waits scenario passed")
        #expect(outcome.everything.contains("offered: The wait is about 6 minutes: we can call you back instead."), "\(outcome.everything)")
        #expect(outcome.everything.contains("callback booked for Mon 09:30 UTC"), "\(outcome.everything)")
    }

    @Test func virtualAgentsAnswerAndEscalate() async throws {
        try await LuaScenario("virtual_agents.lua", sandbox: "agents/sandbox.lua").run()
            .expectPassed("virtual agents scenario passed")
    }

    @Test func smartActionsAndFormsAreAnsweredThroughPluginsAndAttachmentsKeepTheLimits() async throws {
        let outcome = try await LuaScenario("smart_actions/scenario.lua", sandbox: "smart_actions/sandbox.lua").run()
        outcome.expectPassed("smart actions scenario passed")
        #expect(outcome.everything.contains("forms scenario passed"))
        #expect(outcome.everything.contains("call smart actions scenario passed"))
        #expect(outcome.everything.contains("call answers: finished call "), "the call agent got the plugin's answers: \(outcome.everything)")
        #expect(outcome.everything.contains("plugin loaded name=claims-answers"), "the plugins folder beside the scenario is loaded")
    }

    @Test func postSessionFlowsRunEndToEnd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("post-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LuaScenario("post_session/scenario.lua", sandbox: "post_session/sandbox.lua",
                              environment: ["TRANSCRIPT": "transcript.pdf"], outputDirectory: folder.path).run()
            .expectPassed("post_session scenario passed")
        let text = try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", folder.appendingPathComponent("transcript.pdf").path, "-"])
        #expect(text.contains("Feedback Co · Chat transcript") && text.contains("Sage (virtual agent)"), "\(text)")
        #expect(text.contains("Thanks, noted: Shorter waits"), "the post-session virtual agent's messages are in it")
    }

    @Test func pluginsRunThePostSessionFlows() async throws {
        let outcome = try await LuaScenario("post_session/plugins.lua", sandbox: "post_session/sandbox.lua").run()
        outcome.expectPassed("post_session plugins scenario passed")
        #expect(outcome.everything.contains("plugin 'broken' failed: post_session:") && outcome.everything.contains("no feedback database"),
                "a failing hook is reported with its plugin's name")
    }

    @Test func aFailingAssertIsReportedWithItsTraceback() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("failing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("failing.lua")
        try """
            local function check(company)
              assert(company.display_name == "Nobody", "expected Nobody, got " .. company.display_name)
            end
            check(ccai.company.get())
            """.write(to: script, atomically: true, encoding: .utf8)
        let outcome = try await LuaScenario(file: script).run()
        let error = try #require(outcome.error)
        #expect(error.message.contains("failing.lua:2: expected Nobody, got Acme"), "\(error.message)")
        #expect(error.traceback?.contains("failing.lua:2: in") == true && error.traceback?.contains("failing.lua:4:") == true,
                "the traceback names the assert's line and its caller's: \(error.traceback ?? "none")")
    }
}
