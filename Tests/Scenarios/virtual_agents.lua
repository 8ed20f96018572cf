-- Virtual agents and escalation (run with --sandbox Tests/Scenarios/agents/sandbox.lua).
ccai.initialize_chat()
local function from(sender_type, text)
  local batch = ccai.chat.wait_for("messages_received", { timeout = 10,
    match = function(messages) return messages[1].sender.type == sender_type end })
  if text then assert(batch[1].text == text, "expected '" .. text .. "', got '" .. tostring(batch[1].text) .. "'") end
  return batch[1]
end
local function refused(code, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok and err.code == code, "expected " .. code .. ", got " .. tostring(err))
  return err
end

-- Keyword rules, wrong options, then asking for a human.
ccai.chat.start{ menu_id = 4 }
assert(from("virtual_agent").sender.name == "Billie", "the virtual agent takes the chat first")
ccai.chat.send_message("How long do refunds take?")
from("virtual_agent", "Refunds take 5 days.")
ccai.chat.send_message("What are your opening hours?")
from("virtual_agent", "We are open 9 to 5.")
ccai.chat.send_message("Tell me a joke")
assert(from("virtual_agent").text:find("not sure"), "an unknown question gets the fallback answer")
refused("conflict", ccai.chat.update_escalation, { escalation_id = 7 })
assert(refused("invalid_argument", ccai.chat.escalate, { escalation_id = 999 }).message:find("123, 7"), "the offered ids are named")
assert(refused("invalid_argument", ccai.chat.escalate, {}).message:find("escalation_id"))
refused("invalid_argument", ccai.chat.escalate, { escalation_id = 123, deflection_channel = "voice_call" })
ccai.chat.send_message("I want to talk to a human")
from("virtual_agent", "Let me connect you with a human agent.")
local left = ccai.chat.wait_for("member_event", { timeout = 10, match = function(e) return e.type == "left" end })
assert(left.identity == "Billie", "the virtual agent leaves")
from("agent", "Hi, I'm Hana. How can I help you?")
local status = ccai.chat.check_status()
assert(status.agent.name == "Hana" and status.virtual_agent.name == "Billie" and status.status == "active")
refused("conflict", ccai.chat.escalate_to_human_agent)
refused("conflict", ccai.chat.update_escalation, { escalation_id = 7 })
ccai.chat.end_chat()

-- An escalation without a human agent waits; an option moving it to e-mail ends the chat.
ccai.chat.start{ menu_id = 6 }
from("virtual_agent")
ccai.chat.escalate_to_human_agent()
assert(ccai.chat.check_status().status == "queued", "queued until a human agent is free")
ccai.chat.update_escalation{ escalation_id = 7 }
assert(ccai.chat.check_status().status == "queued")
ccai.chat.update_escalation{ escalation_id = 123 }
local note = ccai.chat.wait_for("messages_received", { timeout = 10,
  match = function(m) return m[1].event == "escalated" end })[1]
assert(note.sender.type == "system" and note.text:find("e%-mail") == nil and note.text:find("email"), note.text)
assert(ccai.chat.check_status().status == "ended")

-- Escalating straight to e-mail with escalate(option).
ccai.chat.start{ menu_id = 4 }
from("virtual_agent")
ccai.chat.escalate{ escalation_id = 123, deflection_channel = "email" }
assert(ccai.chat.get_current_chat().status == "ended", "the SDK keeps the ended chat")

-- A scripted virtual agent escalates itself.
ccai.chat.start{ menu_id = 5 }
from("virtual_agent", "Bot here")
ccai.chat.send_message("a human please")
from("virtual_agent", "Escalating")
from("agent", "Hi, I'm Hana. How can I help you?")
ccai.chat.end_chat()
ccai.log.info("virtual agents scenario passed")
