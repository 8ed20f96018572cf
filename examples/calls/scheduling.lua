-- Scheduled calls (seed 002) and the callback, from the customer's side: the queue's
-- slots, a booking moved to another slot and one cancelled, then the platform calling
-- back when the slot comes (incoming_call_event, and the VoIP push the OS would deliver),
-- answered and talked through with the queue's agent.
-- Run: ./scripts/run examples/calls/scheduling.lua --sandbox examples/calls/scheduling-sandbox.lua
-- (about 15 seconds: business time starts just before the queue opens; add --virtual-time
-- and it takes none, docs/virtual-time.md)
ccai.initialize_call()
local phone = "+14155550123"

-- The slots: every five minutes of the queue's hours, soonest first, as Unix times.
local slots = ccai.call.get_scheduled_time_slots{ menu_id = 5 }
assert(#slots >= 2 and slots[2] - slots[1] == 300, "five-minute slots")
ccai.log.info("slots", { first = os.date("!%H:%M", slots[1]), count = #slots })

-- A number not in E.164 form is refused before it is sent.
local ok, err = pcall(ccai.call.create_scheduled_call, { menu_id = 5, phone_number = "415 555 0123", schedule_time = slots[1] })
assert(not ok and err.code == "invalid_argument" and err.message:find("E.164", 1, true), tostring(err))

-- Book the second slot, then move the booking to the first: the old one ends, its slot is free.
local booking = ccai.call.create_scheduled_call{ menu_id = 5, phone_number = phone, schedule_time = slots[2] }
assert(booking.type == "scheduled" and booking.status == "scheduled" and booking.schedule_time == slots[2])
local again, refused = pcall(ccai.call.create_scheduled_call, { menu_id = 5, phone_number = phone, schedule_time = slots[3] })
assert(not again and refused.code == "conflict", "one booking at a time: " .. tostring(refused))
local moved = ccai.call.create_scheduled_call{ menu_id = 5, phone_number = phone, schedule_time = slots[1],
                                               call_id_for_rescheduling = booking.id }
local open = ccai.call.get_scheduled_time_slots{ menu_id = 5 }
assert(open[1] == slots[2], "the first slot is taken now, the second free again")
ccai.log.info("booked", { call_id = moved.id, at = os.date("!%H:%M", moved.schedule_time), replaced = booking.id })

-- The device registers its VoIP token, as PushKit hands it to the app.
assert(ccai.push.register_for_push_notifications())
ccai.push.update_push_token{ data = "a-voip-token-from-pushkit", type = "voip" }

-- The slot comes: the platform rings the customer back.
local incoming = ccai.call.wait_for("incoming_call_event", { timeout = 90 })
assert(incoming.call.id == moved.id and incoming.call.status == "ringing", "the booked call rings")
ccai.log.info("incoming call", { call_id = incoming.call.id, via = incoming.source })
-- The VoIP push the OS would deliver says the same; the SDK tells the call once.
assert(ccai.handle_voip_push({ ccai = { kind = "incoming_call", call_id = moved.id } }))
assert(not ccai.handle_voip_push({ aps = { alert = "not ours" } }), "the app's own pushes are not the SDK's")

local call = ccai.call.accept_incoming_call{ call_id = moved.id }
assert(call.status == "waiting" or call.status == "connecting" or call.status == "connected", call.status)
local talking = ccai.call.wait_for("call_received", { timeout = 30, match = function(c) return c.id == moved.id and c.status == "connected" end })
ccai.log.info("talking", { agent = talking.agent.name })
ccai.call.end_call()

-- A booking can also be cancelled before it comes due.
local later = ccai.call.create_scheduled_call{ menu_id = 5, phone_number = phone,
                                               schedule_time = ccai.call.get_scheduled_time_slots{ menu_id = 5 }[1] }
local cancelled = ccai.call.cancel_scheduled_call{ call_id = later.id }
assert(cancelled.status == "ended" and cancelled.end_reason == "cancelled")
print("scheduling scenario passed")
