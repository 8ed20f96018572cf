-- A custom agent script (LUA-API section 10): Sam takes a claim. He asks for the policy
-- number and a photo of the receipt (smart actions), has the customer fill the contact
-- form, sends the claim summary as a file, and ends the chat once the customer says bye.
return function(agent, session)
  agent.send("Hi, I'm Sam from claims. Let me get a few details.")
  local first = agent.wait_for_message{ timeout = 120 }
  if not first then return agent.end_session() end

  local policy = agent.request_smart_action{ type = "text", timeout = 120 }
  local receipt = agent.request_smart_action{ type = "photo", timeout = 120 }
  if not (policy and receipt) then return end             -- the chat ended meanwhile
  if policy.status ~= "finished" or receipt.status ~= "finished" then
    agent.send("I could not get what I need; please call us.")
    return agent.end_session()
  end

  local contact = agent.send_form{ id = 10, timeout = 300 }
  if not contact then return end
  local summary = string.format("Claim for policy %s: %q. Receipt: %s (%d bytes). We will write to %s.",
    policy.result.text, first.text, receipt.media[1].name or "photo", receipt.media[1].size, contact[2])
  agent.send_file{ name = "claim.txt", mime_type = "text/plain", data = summary }
  agent.send("Thanks " .. contact[1] .. ", your claim is filed. Anything else?")

  repeat
    local message = agent.wait_for_message{ timeout = 300 }
  until not message or (message.text or ""):lower():find("bye")
  agent.send("Goodbye!")
  agent.end_session()
end
