-- Post-session routing by a plugin (plugins/feedback.lua): a customer on Orders rates the
-- chat, a VIP answers the survey; each chat's transcript is saved as a PDF.
--   ./scripts/run examples/post_session/scenario.lua --sandbox examples/post_session/sandbox.lua --out-dir /tmp
ccai.initialize_chat()

local function chat_with_lea(menu_id, text)
  local chat = ccai.chat.start{ menu_id = menu_id }
  local function reaches(status)
    return ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c)
      return c.id == chat.id and c.status == status end })
  end
  reaches("active")
  ccai.chat.send_message(text)
  ccai.chat.send_message("Thanks, bye")
  return reaches("ended")
end

local vip = ccai.queue_menu.get{ key = "vip" }[1]
local customers = { { menu = 1, text = "Where is my order 1042?" }, { menu = vip.id, text = "Je suis client VIP" } }
for _, customer in ipairs(customers) do
  local ended = chat_with_lea(customer.menu, customer.text)
  local flow, result = ccai.plugins.run_post_session(ended)
  local file = ccai.chat.download_chat_transcript{ to = "transcript-" .. ended.id .. ".pdf" }
  if flow == "csat" then
    print(string.format("chat %d: rated %d (%s); transcript %s", ended.id, result.rating, result.feedback, file))
  else
    print(string.format("chat %d: %s answered (%d questions); transcript %s", ended.id, flow, #result.answers, file))
  end
end
