-- Waits briefly for a message, reports the timeout, then waits until the customer ends.
return function(agent)
  agent.send(agent.wait_for_message{ timeout = 0.2 } == nil and "nothing yet" or "unexpected")
  local message = agent.wait_for_message{ timeout = 30 }
  print("after the end:", tostring(message))
end
