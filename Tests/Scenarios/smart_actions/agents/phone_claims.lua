-- Cal asks a caller for their account number and a verification, then hangs up. A call
-- carries no files: a photo is refused before it is asked.
return function(agent, session)
  if session.channel ~= "voice_call" then return end
  local ok, err = pcall(agent.request_smart_action, { type = "photo" })
  assert(not ok and err.code == "invalid_argument" and err.message:find("'screen_share'", 1, true), tostring(err))
  local account = agent.request_smart_action{ type = "text", timeout = 30 }
  local check = agent.request_smart_action{ type = "verification", timeout = 30 }
  print("call answers: " .. account.status .. " " .. tostring(account.result.text) .. ", "
        .. check.status .. " " .. tostring(check.result.verified))
  agent.end_session()
end
