-- ccai.plugins.run_post_session against sandbox.lua with the plugins of plugins/.
ccai.initialize_chat()

local ended_chat = require("chats").ended

-- Sales: company CSAT; the first csat answer (9) is refused and reported, nothing is sent.
local sales = ended_chat(2)
local name, result = ccai.plugins.run_post_session(sales)
assert(name == "csat" and result.error:find("rating", 1, true) and result.plugin == "feedback", tostring(result.error))
ccai.rate.rate{ communication_id = sales.id, communication_type = "chats", rating = 3 }

-- Sales again: the csat hook's rating is submitted and completes the phase; the hook sees
-- the end user and the chat's unsigned custom data in ctx.
local me = ccai.end_user.get_end_user().identifier
local again = ended_chat(2, { custom_data = { unsigned = { device = { label = "Device", value = "iPhone 14" } } } })
name, result = ccai.plugins.run_post_session(again)
assert(name == "csat" and result.rating == 5 and result.feedback == "Quick, csat, for " .. me .. " (iPhone 14)",
       "csat: " .. tostring(result.feedback))
assert(ccai.chat.check_status().post_session_transfer_status == "completed")

-- Signed custom data routes too: a Platinum member of Sales gets no rating request; the
-- same key in unsigned data does not count (signed and unsigned are kept apart).
local platinum = { signed = { membership_tier = { label = "Tier", value = "Platinum" } } }
name, result = ccai.plugins.run_post_session(ended_chat(2, { custom_data = platinum }))
assert(name == "none" and result.plugin == "feedback", "a VIP by signed custom data: " .. name)
local unsigned_platinum = { unsigned = { membership_tier = { label = "Tier", value = "Platinum" } } }
name, result = ccai.plugins.run_post_session(ended_chat(2, { custom_data = unsigned_platinum }))
assert(name == "csat" and result.feedback:find("(-)", 1, true), "unsigned data is not signed: " .. name)

-- Quiet: nothing configured.
name, result = ccai.plugins.run_post_session(ended_chat(3))
assert(name == "none" and result.reason == "not_configured")

-- Support: a post_session hook says "none".
name, result = ccai.plugins.run_post_session(ended_chat(1))
assert(name == "none" and result.reason == "plugin" and result.plugin == "feedback")
assert(ccai.chat.check_status().post_session_transfer_status == nil, "nothing started")

-- Opt-in: declined by the caller, then accepted by the post_session_opt_in hook.
name, result = ccai.plugins.run_post_session(ended_chat(4), { opt_in = false })
assert(name == "none" and result.reason == "opt_in_declined")
assert(ccai.chat.check_status().post_session_transfer_status == nil, "declined: nothing started")
name, result = ccai.plugins.run_post_session(ended_chat(4))
assert(name == "csat" and result.rating == 5, "the hook consented")

-- Returns: the survey hook answers the inherited survey.
local returns = ended_chat(11)
name, result = ccai.plugins.run_post_session(returns)
assert(name == "survey" and result.survey_id and result.answers[1] == "5" and result.answers[3] == "billing", "survey")
assert(ccai.chat.check_status().post_session_transfer_status == "completed")

-- Escalations: the post-session virtual agent talks on the ended chat.
local escalations = ended_chat(12)
name, result = ccai.plugins.run_post_session(escalations)
assert(name == "virtual_agent" and result.virtual_agent_id == "feedback")
ccai.chat.wait_for("messages_received", { timeout = 10, match = function(m) return m[1].sender.name == "Quinn" end })
ccai.chat.send_message("bye")
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c)
  return c.id == escalations.id and c.post_session_transfer_status == "completed" end })

-- Wrong arguments.
assert(not pcall(ccai.plugins.run_post_session, { id = 1 }), "only the current chat")
assert(not pcall(ccai.plugins.run_post_session, "chat"), "a table expected")

-- A call: the same hooks run, for communication_type "calls"; ctx has the call request's
-- custom data.
ccai.initialize_call{ play_audible_messages = false }
local phone = ccai.call.start_instant_call{ menu_id = 6, custom_data = { unsigned = { device = { label = "Device", value = "Pixel" } } } }
ccai.call.wait_for("call_received", { timeout = 10, match = function(c) return c.id == phone.id and c.status == "connected" end })
ccai.call.end_call()
name, result = ccai.plugins.run_post_session(ccai.call.get_current_call())
assert(name == "csat" and result.rating == 5 and result.feedback == "Quick, csat, for " .. me .. " (Pixel)", "call csat: " .. tostring(result.feedback))
ccai.call.wait_for("call_received", { timeout = 10, match = function(c)
  return c.id == phone.id and c.post_session_transfer_status == "completed" end })
local other, refusal = pcall(ccai.plugins.run_post_session, { id = phone.id + 1, recorded = true })
assert(not other and refusal.code == "invalid_argument" and refusal.message:find("not the current call", 1, true), tostring(refusal))

-- The failing plugin is reported with its name; the host kept going.
for _, plugin in ipairs(ccai.plugins.list()) do
  if plugin.name == "broken" then
    assert(plugin.state == "loaded" and plugin.errors[1]:find("no feedback database", 1, true), "reported")
  end
  if plugin.name == "feedback" then
    assert(plugin.errors[1]:find("csat:", 1, true), "the unfitting rating is reported on its plugin")
  end
end
ccai.log.info("post_session plugins scenario passed")
