-- Agents driven by their Lua scripts (run with --sandbox Tests/Scenarios/agents/sandbox.lua).
local function from_agent(text)
  local batch = ccai.chat.wait_for("messages_received", { timeout = 10,
    match = function(messages) return messages[1].sender.type == "agent" end })
  if text then assert(batch[1].text == text, "expected '" .. text .. "', got '" .. tostring(batch[1].text) .. "'") end
  return batch[1]
end

ccai.initialize_chat()
local chat = ccai.chat.start{ menu_id = 1, custom_data = { unsigned = {
  name = { label = "Name", value = "Kim" },
  ssn_last_four = { label = "SSN", value = "1234", invisible_to_agent = true } } } }
assert(from_agent().text == "Hello Kim, chat " .. chat.id .. " (1 item)", "the agent sees the visible custom data only")
ccai.chat.send_message("my card is 4111 1111 1111 1111")
local echoed = from_agent()
assert(echoed.text:find("^echo: my card is ") and not echoed.text:find("4111", 1, true), "the agent sees redacted text")
for i = 1, 3 do
  ccai.chat.send_message("message " .. i)
end
for i = 1, 3 do from_agent("echo: message " .. i) end
ccai.chat.send_message("bye")
from_agent("Goodbye")
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })
assert(ccai.chat.check_status().ended_by == "agent")

-- Reserved CRM keys (seed 004): booleans, in signed custom data only; agents read session.crm.
local function refused(custom_data, needle)
  local ok, err = pcall(ccai.chat.start, { menu_id = 9, custom_data = custom_data })
  assert(not ok and err.code == "invalid_argument" and err.message:find(needle, 1, true), tostring(err))
end
refused({ unsigned = { reserved_bad_actor = { label = "Bad actor", value = true, type = "boolean" } } },
        "reserved_bad_actor: reserved CRM keys are accepted only in signed custom data")
refused({ signed = { reserved_verified_customer = { label = "Verified", value = "yes", type = "string" } } },
        "reserved_verified_customer: a boolean expected")
local crm_data = { signed = {
  reserved_verified_customer = { label = "Verified", value = true, type = "boolean" },
  reserved_bad_actor = { label = "Bad actor", value = false, type = "boolean" } } }
ccai.chat.start{ menu_id = 9, custom_data = crm_data }
from_agent("crm: verified=true bad_actor=false repeat=nil; adapter: reserved_bad_actor,reserved_verified_customer; verifiable=false")
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })

-- Seed 001's ChatRequest: display_order_in_adapter and is_verifiable reach the agent's side.
local ok, err = pcall(ccai.chat.start, { menu_id = 9, display_order_in_adapter = "reserved_bad_actor" })
assert(not ok and err.message:find("'request.display_order_in_adapter' to 'start' (table expected, got string)", 1, true), tostring(err))
ok, err = pcall(ccai.chat.start, { menu_id = 9, display_order_in_adapter = { "plan", 7 } })
assert(not ok and err.message:find("'request.display_order_in_adapter[2]' to 'start' (string expected, got number)", 1, true), tostring(err))
ok, err = pcall(ccai.chat.start, { menu_id = 9, display_order_in_adapter = { "plan", "plan" } })
assert(not ok and err.code == "invalid_argument"
       and err.message:find("the field 'display_order_in_adapter[2]' repeats the key 'plan'", 1, true), tostring(err))
ccai.chat.start{ menu_id = 9, custom_data = crm_data, is_verifiable = true,
                 display_order_in_adapter = { "reserved_verified_customer", "not_in_the_session" } }
from_agent("crm: verified=true bad_actor=false repeat=nil; adapter: reserved_verified_customer,reserved_bad_actor; verifiable=true")
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })

local broken = ccai.chat.start{ menu_id = 2 }
from_agent("I am about to fail")
assert(ccai.chat.check_status().status == "active", "a failing script leaves the chat as it was")
ccai.chat.end_chat()

ccai.chat.start{ menu_id = 3 }
from_agent("nothing yet")
ccai.chat.end_chat()
-- A cold transfer to another queue, whose virtual agent takes over.
ccai.chat.start{ menu_id = 7 }
from_agent("Tom here")
ccai.chat.send_message("I need billing")
from_agent("Transferring you to billing")
local transfer = ccai.chat.wait_for("cold_transfer", { timeout = 10 })
assert(transfer.from_menu_id == 7 and transfer.to_menu_id == 4 and transfer.agent.name == "Tom", "cold_transfer says where")
local left = ccai.chat.wait_for("member_event", { timeout = 10, match = function(e) return e.type == "left" end })
assert(left.identity == "Tom")
local billie = ccai.chat.wait_for("messages_received", { timeout = 10,
  match = function(m) return m[1].sender.type == "virtual_agent" end })[1]
assert(billie.sender.name == "Billie", "the new queue's virtual agent takes the chat")
local moved = ccai.chat.check_status()
assert(moved.menu_id == 4 and moved.agent == nil and moved.virtual_agent.name == "Billie")
ccai.chat.end_chat()
ccai.log.info("scripted agents scenario passed")
