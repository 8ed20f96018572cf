import CCAIScripting
import Foundation
import Testing

/// `--start` and `options.start`: ISO 8601 with an offset, or without one in the company's
/// time zone; a local time the zone skips never fails.
@Suite struct ScenarioStartTests {
    let losAngeles = TimeZone(identifier: "America/Los_Angeles")!

    private func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func localTimesAreReadInTheGivenZone() throws {
        #expect(try ScenarioStart("2026-12-07T08:00").date(in: losAngeles) == utc("2026-12-07T16:00:00Z"))
        #expect(try ScenarioStart("2026-12-07T08:00:30").date(in: losAngeles) == utc("2026-12-07T16:00:30Z"))
        #expect(try ScenarioStart("2026-12-07").date(in: losAngeles) == utc("2026-12-07T08:00:00Z"))
        #expect(try ScenarioStart("2026-07-01T08:00").date(in: losAngeles) == utc("2026-07-01T15:00:00Z"), "summer time")
    }

    @Test func timesWithAnOffsetAreTheirOwn() throws {
        #expect(try ScenarioStart("2026-12-07T08:00:00-05:00").date(in: losAngeles) == utc("2026-12-07T13:00:00Z"))
        #expect(try ScenarioStart("2026-12-07T08:00:00Z").date(in: losAngeles) == utc("2026-12-07T08:00:00Z"))
        #expect(ScenarioStart(utc("2026-12-07T08:00:00Z")).text == "2026-12-07T08:00:00Z")
    }

    /// 02:30 on 8 March 2026 does not exist in Los Angeles (02:00 PST is 03:00 PDT): the
    /// run begins once the clocks are past the jump, and nothing traps.
    @Test func aTimeTheZoneSkipsIsAfterTheJump() throws {
        let date = try ScenarioStart("2026-03-08T02:30").date(in: losAngeles)
        #expect(date >= utc("2026-03-08T10:00:00Z") && date <= utc("2026-03-08T10:30:00Z"), "\(date)")
    }

    @Test(arguments: ["noon", "2026-13-01", "2026-12-07T25:00", "2026-12-07 08:00", "", String(repeating: "9", count: 10_000)])
    func otherTextsAreRefusedWithAnExample(_ text: String) {
        do {
            _ = try ScenarioStart(text)
            Issue.record("accepted '\(text.prefix(40))'")
        } catch {
            let message = "\(error)"
            #expect(message.contains("2026-12-07T08:00:00") && message.count < 200, "\(message)")
        }
    }
}
