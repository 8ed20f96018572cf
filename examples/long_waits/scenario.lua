-- A customer calls Acme's support line. Nobody can answer yet, so once the customer is
-- waiting, the callback-on-long-waits plugin (plugins/callback.lua) offers a callback;
-- the customer hangs up and books the first slot. Run it with its sandbox:
--   ./scripts/run examples/long_waits/scenario.lua --sandbox examples/long_waits/sandbox.lua
ccai.initialize_call{ play_audible_messages = false }
local line = ccai.queue_menu.get{}:find_menu(5)
assert(line, "the support line is menu 5 (run with --sandbox examples/long_waits/sandbox.lua)")

-- Nobody waits yet: the plugin leaves the call to the SDK's default.
local before = ccai.plugins.evaluate_deflection(line, { channel = "voice_call" })
assert(before.action == "allow", "an empty line lets the call through: " .. ccai.json.encode(before))

local call = ccai.call.start_instant_call{ menu_id = line.id }
assert(call.status == "waiting", "nobody answers yet: " .. call.status)
local waits = ccai.queue_menu.get_wait_times{ menu_id = line.id }
print(string.format("waiting, estimated %d s", waits.voice_call))

-- Now the line has a wait: the plugin offers a callback instead.
local offer = ccai.plugins.evaluate_deflection(line, { channel = "voice_call" })
assert(offer.action == "schedule_call" and offer.plugin == "callback-on-long-waits", ccai.json.encode(offer))
print("offered: " .. offer.message)

ccai.call.end_call()
local slots = ccai.call.get_scheduled_time_slots{ menu_id = line.id }
assert(#slots > 0, "the line books callbacks")
local booking = ccai.call.create_scheduled_call{ menu_id = line.id, phone_number = "+14155550123", schedule_time = slots[1] }
assert(booking.status == "scheduled" and booking.schedule_time == slots[1])
print(string.format("callback booked for %s UTC (call %d)", os.date("!%a %H:%M", booking.schedule_time), booking.id))
print("long waits scenario passed")
