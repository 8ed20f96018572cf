-- Vic takes each call of the phone queue: talks a little, puts the caller on hold while
-- checking something, comes back, and stays until the caller hangs up. A script gets
-- chats too (session.channel == "chat"); this queue has calls only.
return function(agent, session)
  if session.channel ~= "voice_call" then return end
  print("call " .. session.id .. " connected, recorded: " .. tostring(session.recorded))
  if not agent.wait{ seconds = 0.2 } then return end    -- the caller explains
  agent.hold()
  if not agent.wait{ seconds = 0.2 } then return end    -- Vic checks the account
  agent.resume()
  while agent.wait{ seconds = 1 } do end                -- until the caller hangs up
end
