-- Vic takes each call of the phone queue: talks a little, puts the caller on hold while
-- checking the account and asks them to confirm who they are (a smart action: on a call,
-- text, a verification or a screen share), comes back once they have, and stays until the
-- caller hangs up. A script gets chats too (session.channel == "chat"); this queue has
-- calls only.
return function(agent, session)
  if session.channel ~= "voice_call" then return end
  print("call " .. session.id .. " connected, recorded: " .. tostring(session.recorded))
  if not agent.wait{ seconds = 0.2 } then return end    -- the caller explains
  agent.hold()
  local check = agent.request_smart_action{ type = "verification", timeout = 30 }
  print("caller verified: " .. tostring(check ~= nil and check.result ~= nil and check.result.verified))
  agent.resume()
  while agent.wait{ seconds = 1 } do end                -- until the caller hangs up
end
