-- A virtual agent that escalates itself when the customer mentions a human.
return function(agent)
  agent.send("Bot here")
  local message = agent.wait_for_message{ timeout = 30 }
  if message and message.text:find("human") then
    agent.send("Escalating")
    agent.escalate()
    local ok, err = pcall(agent.escalate)
    assert(not ok and err.code == "conflict", "a second escalation is refused")
    assert(agent.wait_for_message{ timeout = 5 } == nil, "the virtual agent hears nothing once it has escalated")
    print("escalated")
  end
end
