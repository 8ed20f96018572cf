-- A whole conversation with the sandbox's default agent (queue 8 is served by Ben around the clock).
ccai.initialize_chat()
local chat = ccai.chat.start{ menu_id = 8 }
local active = ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "active" end })
assert(active.id == chat.id)
local switched, why = pcall(ccai.language.set_language_code, "es")
assert(not switched and why.code == "conflict" and why.message:find("before a session", 1, true),
       "the language is chosen before a session: " .. tostring(why))
local joined = ccai.chat.wait_for("member_event", { timeout = 10 })
assert(joined.type == "joined" and joined.identity == "Ben", "the agent joins")

local function next_from_agent()
  local batch = ccai.chat.wait_for("messages_received", { timeout = 10,
    match = function(messages) return messages[1].sender.type == "agent" end })
  return batch[1]
end

assert(next_from_agent().text == "Hi, I'm Ben. How can I help you?", "the agent greets")
ccai.chat.typing(true)
assert(ccai.chat.send_message_preview("My order is") == true, "a preview is kept")
-- Seed 000: messages_received lists incoming messages only (agents, virtual agents, system).
local own_echoes = 0
local echoes = ccai.chat.on("messages_received", function(messages)
  for _, message in ipairs(messages) do
    if message.sender.type == "end_user" then own_echoes = own_echoes + 1 end
  end
end)
local sent = ccai.chat.send_message("My order is late")
assert(sent.sender.type == "end_user" and sent.text == "My order is late" and sent.client_message_id, "own message stored")
assert(next_from_agent().text:find("My order is late", 1, true), "the agent answers")
assert(own_echoes == 0, "the end user's own message is not an incoming one")
local stored = ccai.chat.get_messages()
assert(stored[#stored - 1].id == sent.id, "it is in the chat's messages, before the answer")
echoes:cancel()

ccai.chat.send_message{ text = "Thanks, bye!" }
assert(next_from_agent().text == "Thanks for contacting us. Goodbye!")
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })
assert(ccai.chat.check_status().ended_by == "agent", "the agent ended the chat")

local transcript = ccai.chat.get_messages()
for index, message in ipairs(transcript) do assert(message.sequence == index, "messages in sequence") end
assert(#transcript == 5)
local typing = ccai.chat.wait_for("typing_event", { timeout = 10 })
assert(typing == "started", "the agent types before it writes")
assert(ccai.chat.wait_for("typing_event", { timeout = 10 }) == "ended", "and stops")
local history = ccai.chat.get_previous_chats()
assert(history.chats[1].id == chat.id and history.current_page == 1 and history.total_pages == 1, "the chat is in the history")
assert(#history.messages == 5 and history.messages[1].chat_id == chat.id)
assert(not pcall(ccai.chat.get_previous_chats, 0), "pages start at 1")
local late, err = pcall(ccai.chat.send_message, "anyone?")
assert(not late and err.code == "conflict", "no messages in an ended chat")
ccai.log.info("conversation scenario passed")
