-- Asks to see the customer's screen (with remote control), then asks again.
return function(agent, session)
  local shared = agent.request_screen_share{ remote_control = true, timeout = 20 }
  if not shared then
    agent.send("no screen share")          -- the app cannot share: nil at once
    return agent.end_session()
  end
  agent.send(string.format("screen share %s remote=%s code=%s", shared.state, tostring(shared.remote_control), shared.code))
  local busy = select(2, pcall(agent.request_screen_share, { timeout = 1 }))
  agent.send("while active: " .. tostring(busy.code))
  repeat                                      -- the customer says when the first share is over
    local message = agent.wait_for_message{ timeout = 20 }
  until not message or message.text == "done sharing"
  local declined = agent.request_screen_share{ timeout = 20 }
  agent.send("second " .. (declined and declined.state or "none"))
  repeat
    local message = agent.wait_for_message{ timeout = 30 }
  until not message or message.text == "bye"
  agent.end_session()
end
