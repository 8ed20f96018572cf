import CCAIWire
import Foundation

/// The wait-time deflections of the queues' voice channels (docs/calls.md): what a waiting
/// call is offered once its estimate reaches its queue's `wait_deflection.after_seconds`.
/// A company that prevents direct PSTN calls never offers the phone number; an offer left
/// with nothing to offer is not made.
///
/// ```swift
/// if let offer = deflections.offer(for: waitingCall, at: clock.now()) { ... }
/// ```
struct WaitDeflections: Sendable {
    let configuration: SandboxConfiguration

    /// The offer `call` gets now, or nil: it does not wait, its queue has no wait
    /// deflection, or its estimate is below the threshold.
    func offer(for call: CallResponse, at now: Date) -> CallDeflection? {
        guard call.type == .instant, call.status == .waiting, let estimate = call.estimatedWait,
            let voice = configuration.allMenus.first(where: { $0.id == call.menuId })?.channels?.voiceCall,
            let rule = voice.waitDeflection, Double(estimate) >= rule.afterSeconds
        else { return nil }
        var offers = rule.offers
        if configuration.company.preventDirectPstnCall == true { offers.removeAll { $0 == .phoneNumber } }
        guard !offers.isEmpty else { return nil }
        let language = configuration.company.languages.first ?? "en"
        return CallDeflection(callId: call.id, menuId: call.menuId, estimatedWait: estimate,
                              thresholdSeconds: Checked.truncated(rule.afterSeconds.rounded(.up)) ?? Int.max, offers: offers,
                              phoneNumber: offers.contains(.phoneNumber) ? voice.phoneNumber : nil,
                              message: rule.message?.text(language, fallback: language), offeredAt: now.timeIntervalSince1970)
    }
}
