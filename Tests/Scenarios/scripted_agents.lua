-- Agents driven by their Lua scripts (run with --sandbox Tests/Scenarios/agents/sandbox.lua).
local function from_agent(text)
  local batch = ccai.chat.wait_for("messages_received", { timeout = 10,
    match = function(messages) return messages[1].sender.type == "agent" end })
  if text then assert(batch[1].text == text, "expected '" .. text .. "', got '" .. tostring(batch[1].text) .. "'") end
  return batch[1]
end

ccai.initialize_chat()
local chat = ccai.chat.start{ menu_id = 1, custom_data = { unsigned = { name = { label = "Name", value = "Kim" } } } }
from_agent()
ccai.chat.send_message("my card is 4111 1111 1111 1111")
local echoed = from_agent()
assert(echoed.text:find("^echo: my card is ") and not echoed.text:find("4111", 1, true), "the agent sees redacted text")
for i = 1, 3 do
  ccai.chat.send_message("message " .. i)
end
for i = 1, 3 do from_agent("echo: message " .. i) end
ccai.chat.send_message("bye")
from_agent("Goodbye")
ccai.chat.wait_for("state_changed", { timeout = 10, match = function(e) return e.status == "ended" end })
assert(ccai.chat.check_status().ended_by == "agent")

local broken = ccai.chat.start{ menu_id = 2 }
from_agent("I am about to fail")
assert(ccai.chat.check_status().status == "active", "a failing script leaves the chat as it was")
ccai.chat.end_chat()

ccai.chat.start{ menu_id = 3 }
from_agent("nothing yet")
ccai.chat.end_chat()
ccai.log.info("scripted agents scenario passed")
