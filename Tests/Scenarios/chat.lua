-- The chat lifecycle against the embedded sandbox (queues 7 and 8 are open around the clock).
local ok, err = pcall(ccai.chat.start, { menu_id = 7 })
assert(not ok and err.code == "not_initialized", "chat needs initialize_chat")

ccai.initialize_chat{ greeting = "Hello!", download_transcript_visibility = "hide_in_post_chat" }
assert(ccai.chat.get_last_chat_in_progress() == nil, "no chat yet")
local typo, said = pcall(ccai.chat.start, { menu = 7 })
assert(not typo and said.code == "invalid_argument" and said.message:find("unknown field 'menu'", 1, true), tostring(said))

-- Events arrive over the platform's event stream: every `on` handler sees them, and
-- wait_for returns the oldest one not yet returned.
local states = {}
local subscription = ccai.chat.on("chat_received", function(received) states[#states + 1] = received.status end)
local bad_name = pcall(ccai.chat.on, "state_change", function() end)
assert(not bad_name, "unknown event names are refused")

local chat = ccai.chat.start{ menu_id = 7, lang = "es", custom_data = {
  unsigned = { tier = { label = "Tier", value = "gold", type = "string" },
               age = { label = "Age", value = 30, invisible_to_agent = true } } } }
assert(chat.status == "queued" and chat.menu_id == 7 and chat.lang == "es", "started queued")

local long_ok, long_err = pcall(ccai.chat.send_message, string.rep("a", 10001))
assert(not long_ok and long_err.code == "too_large" and long_err.message:find("at most 10000 characters", 1, true),
       "a text message over the limit: " .. tostring(long_err))

local again, conflict = pcall(ccai.chat.start, { menu_id = 8 })
assert(not again and conflict.code == "conflict" and conflict.status == 409, "one chat in progress at a time")

local current = ccai.chat.get_last_chat_in_progress()
assert(current and current.id == chat.id)
local status = ccai.chat.check_status().status
assert(status == "queued" or status == "assigned" or status == "active", "in progress (the agent may have taken it)")

local received = ccai.chat.wait_for("chat_received", { timeout = 10 })
assert(received.id == chat.id and received.status == "queued", "chat_received carries the chat")

ccai.chat.send_event{ name = "form_received", payload = { name = "contact_form", step = 2, flags = { "a" } } }
ccai.chat.send_event{ name = "smart_action_clicked" }
for _, wrong in ipairs({ {}, { name = "" }, { name = {} }, { name = "x", payload = "text" }, { name = "x", payload = { 1, 2 } } }) do
  local ok, err = pcall(ccai.chat.send_event, wrong)
  assert(not ok and err.code == "invalid_argument" and err.message:find("event"), "rejected: " .. tostring(err))
end

ccai.chat.end_chat()
local late_event, late_err = pcall(ccai.chat.send_event, { name = "form_clicked" })
assert(not late_event and late_err.code == "conflict" and late_err.status == 409, "no events in an ended chat")
local ended = ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })
assert(ended.id == chat.id and ended.ended_by == "end_user", "chat_received carries the whole chat")
assert(states[1] == "queued" and states[#states] == "ended", "the handler saw every change")
subscription:cancel()
assert(ccai.chat.wait_for("state_changed", { timeout = 10 }) == "connecting", "state_changed is the provider's connection")
assert(ccai.chat.wait_for("state_changed", { timeout = 10 }) == "connected")
assert(ccai.chat.get_current_chat().status == "ended" and ccai.chat.get_current_chat().ended_by == "end_user")
assert(ccai.chat.get_last_chat_in_progress() == nil, "nothing in progress after the end")
local resumed, gone = pcall(ccai.chat.resume_chat, chat)
assert(not resumed and gone.code == "conflict", "an ended chat cannot be resumed")

local signed = ccai.chat.start{ menu_id = 8, custom_data = { signed = { reserved_verified_customer = {
  label = "Verified", value = true, type = "boolean" } } } }
assert(signed.status == "queued", "signed custom data is signed by the host")
-- download_transcript_visibility = "hide_in_post_chat": offered during the chat, not after.
assert(ccai.chat.is_transcript_download_offered() == true)
assert(ccai.chat.download_chat_transcript_data():sub(1, 5) == "%PDF-", "in session: offered")
ccai.chat.end_chat()
assert(ccai.chat.is_transcript_download_offered() == false)
local hidden, hidden_err = pcall(ccai.chat.download_chat_transcript_data)
assert(not hidden and hidden_err.code == "forbidden" and hidden_err.message:find("hideInPostChat", 1, true), tostring(hidden_err))

local bad, why = pcall(ccai.chat.start, { menu_id = 8, custom_data = { unsigned = { x = { value = 1 } } } })
assert(not bad and why.code == "invalid_argument" and why.message:find("label"), "custom data items need a label")
ccai.log.info("chat scenario passed")
