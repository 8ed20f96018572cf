-- A queue whose voice virtual agent answers first (seed 002's escalation): the app shows
-- its "Talk to a person" button while call:can_escalate(...) says so, and the caller
-- presses it. Every call table has the method, wherever it comes from (a result, an event).
-- Run: ./scripts/run examples/calls/virtual_agent.lua --sandbox examples/calls/sandbox.lua
ccai.initialize_call{ play_audible_messages = false }

-- The argument of can_escalate is the queue's setting, read from its menu: never hard-coded.
local voice = ccai.queue_menu.get():find_menu(5).channels.voice_call
assert(voice.virtual_agent, "queue 5's calls go to its virtual agent first")
local allow_skip = voice.allow_skip_virtual_agent

local people = {}
ccai.call.on("participant_updated", function(p) people[#people + 1] = p.change .. " " .. p.participant.name end)

ccai.call.start_instant_call{ menu_id = 5 }
local answered = ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.virtual_agent ~= nil end })
assert(answered.status == "connected" and answered.agent == nil, "the virtual agent has the call")
assert(answered:can_escalate(allow_skip), "the button shows while the virtual agent has the call")
ccai.log.info("virtual agent answered", { name = answered.virtual_agent.name, call = tostring(answered) })

-- The caller presses the button: the virtual agent leaves and the call waits for a person.
local waiting = ccai.call.escalate_to_human_agent()
assert(waiting.status == "waiting" and waiting.virtual_agent == nil)
local human = ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.agent ~= nil and c.status == "connected" end })
assert(not human:can_escalate(allow_skip), "a person has the call: the button hides")
assert(not ccai.call.get_current_call():can_escalate(allow_skip))
local again, refused = pcall(ccai.call.escalate_to_human_agent)
assert(not again and refused.code == "conflict", "there is no virtual agent left to leave")

ccai.call.end_call()
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.status == "ended" end })
ccai.sleep(0)
ccai.log.info("escalated", { agent = human.agent.name, participants = table.concat(people, ", ") })
print("virtual agent scenario passed")
