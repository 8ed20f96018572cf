import CCAIKit
@testable import CCAIScripting
import CCAIWire
import Foundation
import Testing
import Timekeeping

/// The voice metrics of a VU (`call_wait_seconds`, `call_setup_seconds`,
/// `call_handle_seconds`, `call_abandoned`), from its SDK calls and call events on a
/// manual clock: exact times, any order of arrival.
@Suite struct CallMetricsTests {
    private let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    private let metrics = ScenarioMetrics()
    private var recorder: SDKMetricsRecorder { SDKMetricsRecorder(metrics: metrics, clock: clock) }

    private func call(_ id: Int, _ status: CallStatus, type: CallType = .instant, agent: String? = nil) -> CallResponse {
        CallResponse(id: id, menuId: 1, type: type, status: status, agent: agent.map { ChatAgent(name: $0) },
                     createdAt: clock.now().timeIntervalSince1970)
    }

    private func series(_ metric: BuiltInMetric, _ type: String) -> Metric.Series {
        metrics.snapshot().metric(metric).matching(["type": type])
    }

    /// An instant call waits 12 s, an agent takes it (`connecting`, naming the agent), it
    /// connects 1 s later and ends 90 s after that: a wait, a setup, a handle time, and not
    /// abandoned. A `connecting` that names no agent is not a take.
    @Test func aTakenCallHasItsWaitSetupAndHandleTime() {
        let recorder = self.recorder
        let began = recorder.begin()
        clock.advance(by: 0.5)
        recorder.end(service: "call", method: "start_instant_call", began: began, status: "ok", result: call(1, .waiting))
        recorder.observe(.callReceived(call(1, .connecting)))
        #expect(metrics.snapshot().metric(.callWait).total.count == 0)
        clock.advance(by: 11.5)
        recorder.observe(.callReceived(call(1, .connecting, agent: "Ada")))
        clock.advance(by: 1)
        recorder.observe(.callReceived(call(1, .connected, agent: "Ada")))
        clock.advance(by: 30)
        recorder.observe(.callReceived(call(1, .onHold, agent: "Ada")))
        clock.advance(by: 60)
        recorder.observe(.callReceived(call(1, .ended, agent: "Ada")))
        #expect(series(.callWait, "instant").sum == 12 && series(.callWait, "instant").count == 1)
        #expect(series(.callSetup, "instant").sum == 13 && series(.callSetup, "instant").count == 1)
        #expect(series(.callHandle, "instant").sum == 90 && series(.callHandle, "instant").count == 1)
        let abandoned = series(.callAbandoned, "instant")
        #expect(abandoned.count == 1 && abandoned.trues == 0)
        #expect(metrics.snapshot().metric(.sdkCall).matching(["service": "call", "method": "start_instant_call"]).count == 1)
    }

    /// A call the customer hangs up before anyone takes it is abandoned, with no wait,
    /// setup or handle time; so is one the iteration leaves waiting. A call already taken
    /// when the iteration ends is left to its events.
    @Test func callsLeftBeforeAnAgentTookThemAreAbandoned() {
        let recorder = self.recorder
        recorder.end(service: "call", method: "start_instant_call", began: recorder.begin(), status: "ok", result: call(1, .waiting))
        clock.advance(by: 40)
        recorder.observe(.callReceived(call(1, .ended)))
        recorder.end(service: "call", method: "start_instant_call", began: recorder.begin(), status: "ok", result: call(2, .waiting))
        clock.advance(by: 5)
        recorder.calls.iterationEnded(leaving: call(2, .waiting))
        recorder.observe(.callReceived(call(2, .ended)))   // ended later by someone else: counted once
        recorder.end(service: "call", method: "start_instant_call", began: recorder.begin(), status: "ok", result: call(3, .waiting))
        clock.advance(by: 2)
        recorder.calls.iterationEnded(leaving: call(3, .connecting, agent: "Ada"))   // the SDK saw it taken first
        recorder.observe(.callReceived(call(3, .connecting, agent: "Ada")))
        let abandoned = series(.callAbandoned, "instant")
        #expect(abandoned.count == 3 && abandoned.trues == 2, "\(abandoned)")
        #expect(series(.callWait, "instant").count == 1 && series(.callWait, "instant").sum == 2)
        #expect(series(.callHandle, "instant").count == 0 && series(.callSetup, "instant").count == 0)
        let threshold = try? Threshold(metric: "call_abandoned{type:instant}", expression: "rate < 0.5")
        #expect(threshold?.evaluate(metrics.snapshot(), elapsed: 1).holds == false)
    }

    /// The callback of a scheduled call waits from its acceptance, tagged `scheduled`;
    /// events that come before the request returns are kept until it does. A booking, a
    /// voicemail and a refused start place no call.
    @Test func aScheduledCallbackIsTaggedAndEventsMayComeFirst() throws {
        let recorder = self.recorder
        recorder.end(service: "call", method: "create_scheduled_call", began: recorder.begin(), status: "ok",
                     result: call(7, .scheduled, type: .scheduled))
        recorder.end(service: "call", method: "start_voicemail", began: recorder.begin(), status: "ok", result: call(8, .connected, type: .voicemail))
        recorder.observe(.callReceived(call(8, .ended, type: .voicemail)))
        recorder.end(service: "call", method: "start_instant_call", began: recorder.begin(), status: "conflict", result: nil)
        clock.advance(by: 600)
        recorder.observe(.callReceived(call(7, .ringing, type: .scheduled)))
        let began = recorder.begin()
        clock.advance(by: 3)
        recorder.observe(.callReceived(call(7, .connecting, type: .scheduled, agent: "Sam")))
        recorder.observe(.callReceived(call(7, .connected, type: .scheduled, agent: "Sam")))
        clock.advance(by: 1)
        recorder.end(service: "call", method: "accept_incoming_call", began: began, status: "ok", result: call(7, .waiting, type: .scheduled))
        clock.advance(by: 45)
        recorder.observe(.callReceived(call(7, .ended, type: .scheduled, agent: "Sam")))
        #expect(series(.callWait, "scheduled").sum == 3 && series(.callSetup, "scheduled").sum == 3)
        #expect(series(.callHandle, "scheduled").sum == 46)
        #expect(series(.callAbandoned, "scheduled").count == 1 && series(.callAbandoned, "scheduled").trues == 0)
        for metric in [BuiltInMetric.callWait, .callSetup, .callHandle, .callAbandoned] {
            #expect(metrics.snapshot().metric(metric).total.count == 1, "\(metric): only the callback is a call that waited")
        }
        let level = try Threshold(metric: "call_wait_seconds{type:scheduled}", expression: "p(95) < 5")
        #expect(level.evaluate(metrics.snapshot(), elapsed: 1).holds)
    }
}
