-- Voicemail, wait-time deflection and audible messages (seed 002), from the customer's
-- side: an after-hours queue takes a message instead of a call; on a queue whose wait is
-- long the platform offers voicemail, and taking it ends the waiting call. The SDK plays
-- the queues' announcements at their moments of the call: here, it logs them.
-- Run: ./scripts/run examples/calls/voicemail.lua --sandbox examples/calls/sandbox.lua
ccai.initialize_call()   -- play_audible_messages is on by default

local played, calls = {}, {}
ccai.call.on("audible_message_played", function(message) played[#played + 1] = message.call_id .. ":" .. message.kind end)
ccai.call.on("call_received", function(call) calls[call.id] = call end)

-- What an app that renders the announcements itself would resolve.
local messages = ccai.audible_message.resolve_messages{ menu_id = 4 }
assert(#messages == 3 and messages[2].kind == "all_agents_busy" and messages[2].audio_url, "queue 4 adds its own")

-- After hours: the queue refuses calls, and says voicemail is the way in.
local menus = ccai.queue_menu.get()
local closed = menus:find_menu(3).channels.voice_call
assert(closed.voicemail_reason == "after_hour_deflection" and not closed.instant_enabled, "queue 3 is closed")
local ok, err = pcall(ccai.call.start_instant_call, { menu_id = 3 })
assert(not ok and err.code == "conflict", tostring(err))
local message = ccai.call.start_voicemail{ menu_id = 3 }
assert(message.type == "voicemail" and message.status == "connected" and message.recorded)
assert(message.voicemail_reason == "after_hour_deflection")
ccai.log.info("leaving a message", { queue = message.menu_id, reason = message.voicemail_reason })
ccai.call.end_call()

-- A queue without a voicemail box (no phone number) takes no message.
local open, refused = pcall(ccai.call.start_voicemail, { menu_id = 1 })
assert(not open and refused.code == "invalid_argument" and refused.message:find("no voicemail box", 1, true), tostring(refused))

-- A long wait: the platform offers voicemail once, and taking it ends the waiting call.
local call = ccai.call.start_instant_call{ menu_id = 4 }
local offer = ccai.call.wait_for("deflection_offered", { timeout = 10 })
assert(offer.call_id == call.id and offer.offers[1] == "voicemail", "the offer is for the waiting call")
assert(ccai.call.get_call_deflection{ call_id = call.id }.message == "The wait is long: leave us a message?")
assert(ccai.call.get_call_deflection{ call_id = message.id } == nil, "nothing was offered to the first voicemail")
ccai.log.info("deflection offered", { wait = offer.estimated_wait, threshold = offer.threshold_seconds, message = offer.message })
local instead = ccai.call.start_voicemail{ menu_id = 4 }
assert(instead.voicemail_reason == "over_capacity_deflection")
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.id == call.id and c.status == "ended" end })
assert(calls[call.id].end_reason == "voicemail", "the waiting call ended for the voicemail")
ccai.call.end_call()

ccai.call.wait_for("audible_message_played", { timeout = 10, match = function(m) return m.call_id == instead.id and m.kind == "goodbye" end })
ccai.log.info("announcements", { played = table.concat(played, ",") })
print("voicemail scenario passed")
