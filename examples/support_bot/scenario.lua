-- A support bot: a customer files an insurance claim with Sam, the scripted agent. The
-- plugin beside this file answers Sam's smart actions (text, photo) and fills his form.
-- Run: ./scripts/run examples/support_bot/scenario.lua --sandbox examples/support_bot/sandbox.lua
local function from_agent(pattern)
  return ccai.chat.wait_for("messages_received", { timeout = 30, match = function(messages)
    local m = messages[1]
    return m.sender.type == "agent" and (m.media ~= nil or (m.text or ""):find(pattern) ~= nil)
  end })[1]
end

ccai.smart_action.on("requested", function(action)
  ccai.log.info("the agent asks for a smart action", { type = action.type, id = action.id })
end)
ccai.initialize_chat()
local chat = ccai.chat.start{ menu_id = 1 }
ccai.log.info("chat started", { id = chat.id })
print(from_agent("^Hi").text)
ccai.chat.send_message("My phone fell in the pool, my card is 4111 1111 1111 1111")

local file = from_agent("never").media
local claim = ccai.chat.download_media(file.id, { media_type = file.type })
ccai.log.info("claim summary received", { file = claim.file_name, text = claim.data })
print(from_agent("^Thanks").text)
ccai.chat.send_message("No, that's all. Bye!")
print(from_agent("^Goodbye").text)
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })

local history = ccai.chat.get_previous_chats(1)
local actions = ccai.smart_action.get_smart_actions{ router = { id = chat.id, type = "chat" } }
ccai.log.info("done", { chats = #history.chats, messages = #history.messages, smart_actions = #actions,
                        text = actions[1].result.text, photos = #actions[2].result.media_ids })
