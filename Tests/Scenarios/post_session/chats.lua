-- What the post-session scenarios share: a chat with Ada that she ends after the
-- customer's goodbye.
local chats = {}

--- Starts a chat on `menu_id` (with the request's other `fields`, if any), says goodbye
--- once Ada has it, and returns the ended chat.
function chats.ended(menu_id, fields)
  local request = { menu_id = menu_id }
  for key, value in pairs(fields or {}) do request[key] = value end
  local chat = ccai.chat.start(request)
  local function reaches(status)
    return ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c)
      return c.id == chat.id and c.status == status end })
  end
  reaches("active")
  ccai.chat.send_message("bye")
  return reaches("ended")
end

return chats
