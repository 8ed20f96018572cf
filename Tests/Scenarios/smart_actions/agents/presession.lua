-- Reports the pre-session smart actions the chat arrived with.
return function(agent, session)
  local parts = {}
  for _, action in ipairs(session.smart_actions) do
    local result = action.result or {}
    parts[#parts + 1] = string.format("%s:%s:%s", action.type, action.status,
      result.text or (result.media_ids and #result.media_ids .. " file") or result.decline_reason or "-")
  end
  agent.send("pre-session " .. table.concat(parts, " "))
  agent.wait_for_message{ timeout = 30 }
  agent.end_session()
end
