import CCAIWire
import Foundation
import LuaRuntime

/// `{ menu_id = 12 }`, or the menu id alone (`ccai.audible_message.resolve_messages(12)`).
struct MenuArgument: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "menu_id")
    var menuId: Int
}

/// `{ call_id = 7 }`, or the call id alone (`ccai.call.cancel_scheduled_call(7)`).
struct CallArgument: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "call_id")
    var callId: Int
}

/// A call table, as the SDK returned it (`ccai.call.resume_call(call)`).
struct CallValueArgument: ValueArgument {
    static let name = "call"
    var value: CallResponse
}

/// `start_instant_call{ menu_id, recording_permission, custom_data, ticket_id }`.
struct InstantCallArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var menuId: Int
    var recordingPermission: RecordingPermission?
    var customData: CustomDataArgument?
    var ticketId: String?
}

/// `start_voicemail{ menu_id, custom_data, ticket_id }`.
struct VoicemailArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var menuId: Int
    var customData: CustomDataArgument?
    var ticketId: String?
}

/// `get_scheduled_time_slots{ menu_id, call_id_for_rescheduling }`.
struct TimeSlotsArguments: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var menuId: Int
    var callIdForRescheduling: Int?
}

/// `create_scheduled_call{ menu_id, phone_number, schedule_time, ... }`: a slot of
/// `get_scheduled_time_slots`, a number in E.164.
struct ScheduledCallArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var menuId: Int
    var phoneNumber: String
    var scheduleTime: Double
    var recordingPermission: RecordingPermission?
    var callIdForRescheduling: Int?
    var customData: CustomDataArgument?
    var ticketId: String?

    func problem() -> ArgumentProblem? {
        scheduleTime.isFinite && abs(scheduleTime) < 1e11
            ? nil : ArgumentProblem("schedule_time", "a Unix time expected (a slot of get_scheduled_time_slots)")
    }
}

/// `set_on_hold(true)`.
struct OnHoldArgument: ValueArgument {
    static let name = "on_hold"
    var value: Bool
}

/// `set_muted(true)`.
struct MutedArgument: ValueArgument {
    static let name = "muted"
    var value: Bool
}

/// `simulate_interruption{ seconds = 2 }`, or the seconds alone: at most a day.
struct InterruptionArgument: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "seconds")
    var seconds: Double

    func problem() -> ArgumentProblem? {
        (0...86_400).contains(seconds) ? nil : ArgumentProblem("seconds", "a number of seconds from 0 to 86400 expected, got \(seconds)")
    }
}
