-- Pushes (seed 004; LUA-API section 13): an agent's reply while the app is in the
-- background comes as a push to the device's token, and back in the foreground the reply
-- itself arrives on the event stream, nothing missed. Queue 8 (Ben) is open around the clock.
ccai.initialize_chat()
assert(ccai.is_in_background() == false, "the app starts in the foreground")
local ok, err = pcall(ccai.set_in_background, "yes")
assert(not ok and err.code == "invalid_argument" and err.message:find("in_background", 1, true), tostring(err))

-- Each device has its own token (a VU of a load test too): made from a UUID's 16 bytes.
local token = (ccai.uuid():gsub("-", "")):gsub("%x%x", function(hex) return string.char(tonumber(hex, 16)) end)
local misspelt, why = pcall(ccai.push.update_push_token, { token = token, type = "apns" })
assert(not misspelt and why.code == "invalid_argument" and why.message:find("unknown field 'token'", 1, true), tostring(why))
ccai.push.update_push_token{ data = token, type = "apns" }
local seen = {}
ccai.push.on("push", function(push) seen[#seen + 1] = push end)

-- The app listens once its stream is connected: from then on nothing is pushed.
ccai.chat.wait_for("state_changed", { timeout = 30, match = function(state) return state == "connected" end })
local chat = ccai.chat.start{ menu_id = 8 }
local function from_ben(messages)
  for _, message in ipairs(messages) do
    if message.sender.type == "agent" then return true end
  end
  return false
end
ccai.chat.wait_for("messages_received", { timeout = 30, match = from_ben })
assert(#seen == 0, "nothing is pushed while the app listens")

local states = {}
ccai.chat.on("state_changed", function(state) states[#states + 1] = state end)
ccai.set_in_background(true)
assert(ccai.is_in_background() == true)
ccai.chat.send_message{ text = "Where is my order?" }
local push = ccai.push.wait_for("push", { timeout = 30 })
assert(push.type == "apns", "an agent's message is a notification, not a VoIP push")
assert(push.payload.ccai.kind == "chat_message" and push.payload.ccai.chat_id == chat.id, ccai.json.encode(push.payload))
local alert = push.payload.aps.alert
assert(type(alert) == "string" and alert:sub(1, 5) == "Ben: " and alert == push.payload.ccai.alert, alert)
assert(ccai.push.handle_push_notification(push.payload) == true, "the platform's push is the SDK's to handle")
assert(seen[1] and seen[1].payload.ccai.chat_id == chat.id, "on handlers see the push too")

ccai.set_in_background(false)
local reply = ccai.chat.wait_for("messages_received", { timeout = 30, match = from_ben })
local texts = {}
for _, message in ipairs(reply) do texts[#texts + 1] = message.text end
assert(alert:find(texts[#texts] and texts[#texts]:sub(1, 20) or "?", 1, true), "the reply the push announced arrives: "
       .. table.concat(texts, " | ") .. " / " .. alert)
assert(table.concat(states, ",") == "disconnected,connecting,connected",
       "the provider's line closes in the background and connects again: " .. table.concat(states, ","))

-- A token cleared is no longer the device's: the platform has nowhere to push. (The
-- goodbye's answer comes on the stream once back; a push would have come before it.)
ccai.push.update_push_token{ data = nil, type = "apns" }
ccai.set_in_background(true)
ccai.chat.send_message{ text = "Thanks, bye" }
ccai.set_in_background(false)
ccai.chat.wait_for("messages_received", { timeout = 30, match = from_ben })
assert(#seen == 1, "no push without a token: " .. #seen)
print("push scenario passed")
