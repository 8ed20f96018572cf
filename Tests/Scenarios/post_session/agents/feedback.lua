-- A scripted post-session virtual agent: one question, one answer, done.
return function(agent, session)
  assert(session.post_session == true, "a post-session script knows it")
  agent.send("One question before you go: what should we improve?")
  local answer = agent.wait_for_message{ timeout = 30 }
  agent.send("Thanks, noted: " .. (answer and answer.text or "nothing"))
  agent.end_session()
end
