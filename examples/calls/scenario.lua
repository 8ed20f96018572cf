-- A voice call from the customer's side (seed 002): recording consent, waiting, the
-- agent, hold, a smart action, a cellular call interrupting, resume, hang up, and the
-- CSAT after it. There is no audio: a call is its signalling, and the script plays the
-- device.
-- Run: ./scripts/run examples/calls/scenario.lua --sandbox examples/calls/sandbox.lua
ccai.initialize_call{ play_audible_messages = false }

-- The provider's line and the server's call are two columns: watch both.
local lines, statuses = {}, {}
ccai.call.on("state_changed", function(state) lines[#lines + 1] = state end)
ccai.call.on("call_received", function(call) statuses[#statuses + 1] = call.status end)

-- Consent: the queue's voice channel says whether the caller is asked.
local menus = ccai.queue_menu.get()
local voice = menus:find_menu(1).channels.voice_call
assert(voice.instant_enabled and voice.recording_option == "ask_user", "queue 1 takes instant calls and asks about recording")
local ok, err = pcall(ccai.call.start_instant_call, { menu_id = 1 })
assert(not ok and err.code == "invalid_argument" and err.message:find("recording_permission", 1, true), tostring(err))

local call = ccai.call.start_instant_call{ menu_id = 1, recording_permission = "granted" }
ccai.log.info("call started", { id = call.id, status = call.status, estimated_wait = call.estimated_wait })
local joined = ccai.call.wait_for("participant_updated", { timeout = 10 })
ccai.log.info("agent joined", { name = joined.participant.name })
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "connected" end })

-- The agent puts the caller on hold while checking the account, and asks them to confirm
-- who they are: the app answers the smart action (without a router, the functions act on
-- the session in progress: here, the call), and the agent comes back.
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "on_hold" end })
assert(ccai.call.is_on_hold(), "on hold until the app answers")
local check = ccai.smart_action.wait_for("requested", { timeout = 10 })
assert(check.type == "verification" and check.call_id == call.id and check.chat_id == nil)
ccai.smart_action.notify_smart_action_received{ smart_action_id = check.id }
ccai.smart_action.send_smart_action_result{ smart_action_id = check.id, result = { verified = true } }
ccai.smart_action.update_smart_action_status{ smart_action_id = check.id, status = "finished" }
assert(ccai.smart_action.get_smart_actions()[1].status == "finished")
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "connected" end })
assert(not ccai.call.is_on_hold())

local busy, second = pcall(ccai.call.start_instant_call, { menu_id = 1, recording_permission = "granted" })
assert(not busy and second.code == "conflict", "one call at a time")

-- The device: mute, speaker, then a cellular call interrupts the CCAI call.
ccai.call.set_muted(true)
ccai.call.set_speaker_enabled(true)
assert(ccai.call.is_muted() and ccai.call.is_speaker_enabled())
ccai.call.simulate_interruption{ seconds = 0.1 }
assert(ccai.call.get_current_call().status == "interrupted")
ccai.call.resume_call(ccai.call.get_last_call_in_progress())
assert(ccai.call.get_current_call().status == "connected")

ccai.call.end_call()
local ended = ccai.call.get_current_call()
assert(ended.status == "ended" and ended.end_reason == "end_user" and ended.recorded)
assert(not ccai.call.is_muted(), "the device's controls reset with the call")
local late, refused = pcall(ccai.call.resume_call, ended)
assert(not late and refused.code == "conflict", "an ended call is not resumed")
local idle, nothing = pcall(ccai.call.set_muted, true)
assert(not idle and nothing.code == "not_found", "controls need a call in progress")

ccai.call.wait_for("state_changed", { timeout = 10, match = function(s) return s == "disconnected" end })
-- The platform's record of the call ends too: its call_received comes on the event stream,
-- which may be after the SDK's own line went down. sleep(0) lets the on handler see it.
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "ended" end })
ccai.sleep(0)
-- The refused first attempt went connecting, disconnected; the call connecting, connected,
-- disconnected; the refused second call, made while on the line, left the line alone.
assert(table.concat(lines, ",") == "connecting,disconnected,connecting,connected,disconnected", "the line: " .. table.concat(lines, ","))
ccai.log.info("call done", { statuses = table.concat(statuses, ","), line = table.concat(lines, ",") })

-- After the call: the post-session flow the hierarchy chose (virtual agent > survey > CSAT),
-- here the company's CSAT, for communication_type "calls".
local flow = ccai.call.get_post_session_flow()
assert(flow.type == "csat" and flow.communication_type == "calls" and flow.communication_id == call.id, "the company's CSAT")
assert(ccai.chat.get_post_session_flow().communication_id == call.id, "the session that ended last is the call")
assert(ended.post_session_required and ccai.rate.get_rate_target().communication_type == "calls")
ccai.call.start_post_session()
assert(ccai.call.ready_post_session().post_session_transfer_status == "ready")
ccai.rate.rate{ communication_id = call.id, communication_type = "calls", rating = 5, feedback = "Quick and clear" }
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.post_session_transfer_status == "completed" end })
assert(ccai.call.get_current_call().post_session_transfer_status == "completed", "the SDK's record follows the platform's")
ccai.rate.clear_rate_target()
print("calls scenario passed")
