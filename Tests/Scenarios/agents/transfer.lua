-- Transfers the chat to billing (a virtual agent's queue) after the customer's first message.
return function(agent)
  agent.send("Tom here")
  agent.wait_for_message{ timeout = 30 }
  local ok, err = pcall(agent.transfer, { menu_id = 99 })
  assert(not ok and err.code == "invalid_argument" and err.message:find("99"), tostring(err))
  ok, err = pcall(agent.transfer, { menu_id = 8 })
  assert(not ok and err.code == "invalid_argument" and err.message:find("no chat channel"), tostring(err))
  ok, err = pcall(agent.transfer, { menu_id = 7 })
  assert(not ok and err.code == "invalid_argument" and err.message:find("already"), tostring(err))
  ok, err = pcall(agent.transfer, {})
  assert(not ok and err.code == "invalid_argument" and err.message:find("menu_id"), tostring(err))
  agent.send("Transferring you to billing")
  agent.transfer{ menu_id = 4 }
  assert(agent.wait_for_message{ timeout = 5 } == nil, "the transferring agent hears nothing more")
end
