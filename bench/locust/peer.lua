-- The ccai side of the Locust peer (locustfile.py): the same chat flow against the same
-- served sandbox (sandbox.lua), for ccai-bench's peer ratios. Each iteration starts a chat
-- on the Night Desk, waits for Nova's greeting, asks three questions and waits for each
-- answer, then ends the chat.
ccai.initialize_chat()

local HOURS = "Our day desks are open 9:00-17:00, Monday to Friday (Los Angeles time). I'm here around the clock."
local REFUNDS = "Refunds reach your card within 5 business days."
local QUESTIONS = {
  { "What are your opening hours?", HOURS },
  { "How long does a refund take?", REFUNDS },
  { "And your hours at the weekend?", HOURS },
}

local function answer(expected)
  return ccai.chat.wait_for("messages_received", { timeout = 30, match = function(messages)
    for _, message in ipairs(messages) do
      if message.sender.type == "virtual_agent" and (expected == nil or message.text == expected) then return true end
    end
    return false
  end })
end

return {
  options = { vus = 1 },
  run = function()
    ccai.chat.start{ menu_id = 7 }
    answer(nil)
    for _, question in ipairs(QUESTIONS) do
      ccai.chat.send_message(question[1])
      answer(question[2])
    end
    ccai.chat.end_chat()
  end,
}
