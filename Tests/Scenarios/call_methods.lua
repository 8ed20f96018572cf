-- call:can_escalate on every call table (results, events), and what a wrong use says.
-- Run against examples/calls/sandbox.lua: queue 5 has a voice virtual agent callers may skip.
ccai.initialize_call{ play_audible_messages = false }
assert(ccai.chat.get_post_session_flow() == nil, "no session yet: no flow")

-- A method with one parameter also takes it alone (LUA-API section 1); a misspelt field
-- is named, not ignored.
assert(#ccai.audible_message.resolve_messages(1) >= 1, "resolve_messages(menu_id)")
local missing, why = pcall(ccai.call.cancel_scheduled_call, 999999)
assert(not missing and why.code == "not_found", tostring(why))
missing, why = pcall(ccai.call.get_call_deflection, 999999)
assert(not missing and why.code == "not_found", tostring(why))
local typo, said = pcall(ccai.call.start_instant_call, { menuid = 5 })
assert(not typo and said.code == "invalid_argument" and said.message:find("unknown field 'menuid'", 1, true)
       and said.message:find("did you mean 'menu_id'", 1, true), tostring(said))
typo, said = pcall(ccai.call.get_scheduled_time_slots, { menu_id = 1, call_id_for_reschedule = 5 })
assert(not typo and said.code == "invalid_argument" and said.message:find("call_id_for_rescheduling", 1, true), tostring(said))

local with_method = {}
ccai.call.on("call_received", function(c) with_method[#with_method + 1] = type(c.can_escalate) == "function" end)

local call = ccai.call.start_instant_call{ menu_id = 5 }
assert(call.status == "waiting", "the request answers the call as it was created")
assert(call:can_escalate(true) and not call:can_escalate(false), "a waiting call may skip the virtual agent only where allowed")
assert(call:can_escalate() == false, "no argument reads as false")
assert(tostring(call):find("^ccai%.Call: "), tostring(call))

local ok, err = pcall(call.can_escalate)
assert(not ok and err.code == "invalid_argument" and err.message:find("colon", 1, true), tostring(err))
ok, err = pcall(call.can_escalate, call, "yes")
assert(not ok and err.code == "invalid_argument" and err.message:find("allow_skip_virtual_agent", 1, true), tostring(err))
ok, err = pcall(call.can_escalate, { id = "seven" })
assert(not ok and err.code == "invalid_argument" and err.message:find("a call expected", 1, true), tostring(err))

local answered = ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.virtual_agent ~= nil end })
assert(answered:can_escalate(false), "the virtual agent has it")
ccai.call.resume_call(answered)   -- a call table with its methods is still a call
assert(ccai.call.get_last_call_in_progress():can_escalate(false))
ccai.call.end_call()
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "ended" end })
ccai.sleep(0)
for index, has in ipairs(with_method) do assert(has, "event " .. index .. " has the method") end
assert(#with_method >= 3, #with_method .. " events")
print("call methods scenario passed")
