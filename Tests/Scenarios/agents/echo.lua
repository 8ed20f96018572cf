-- Greets with the session's custom data, echoes every message until "bye", then ends.
return function(agent, session)
  local items = 0
  for _ in pairs(session.custom_data.unsigned) do items = items + 1 end
  agent.send("Hello " .. session.custom_data.unsigned.name.value .. ", chat " .. session.id .. " (" .. items .. " item)")
  while true do
    local message = agent.wait_for_message{ timeout = 30 }
    if message == nil then return end
    if message.text == "bye" then
      agent.send("Goodbye")
      assert(agent.end_session() == true)
      assert(agent.end_session() == false, "a second end is a no-op")
      local ok, err = pcall(agent.send, "too late")
      assert(not ok and err.code == "conflict", "nothing is sent to an ended chat")
      return
    end
    agent.send("echo: " .. message.text)
  end
end
