-- Checks its argument errors, then fails; the sandbox logs the failure and keeps serving.
return function(agent)
  local ok, err = pcall(agent.send, {})
  assert(not ok and err.code == "invalid_argument" and err.message:find("text"), tostring(err))
  ok, err = pcall(agent.wait_for_message, { timeout = -1 })
  assert(not ok and err.code == "invalid_argument" and err.message:find("timeout"), tostring(err))
  agent.send("I am about to fail")
  error("the agent script broke on purpose")
end
