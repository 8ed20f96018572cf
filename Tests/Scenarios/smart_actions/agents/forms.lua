-- Sends custom and web forms and reports the answers.
local function show(answers)
  local keys = {}
  for id in pairs(answers) do keys[#keys + 1] = id end
  table.sort(keys)
  local parts = {}
  for _, id in ipairs(keys) do parts[#parts + 1] = id .. "=" .. answers[id] end
  return table.concat(parts, " ")
end

return function(agent, session)
  local contact = agent.send_form{ id = 10, timeout = 20 }
  agent.send("contact: " .. show(contact))
  local refund = agent.send_web_form{ external_form_id = "refund", timeout = 20 }
  agent.send("refund: " .. refund.status .. " " .. show(refund.answers) .. " (" .. refund.message .. ")")
  local feedback = agent.send_form{ id = 11, timeout = 20 }
  agent.send("feedback: " .. show(feedback))
  local consent = agent.send_web_form{ external_form_id = "consent", timeout = 20 }
  agent.send("consent: " .. consent.status)
  local rating = agent.send_web_form{ external_form_id = "rating", timeout = 20 }
  agent.send("rating: " .. rating.status .. " (" .. rating.message .. ")")
  local unknown = select(2, pcall(agent.send_form, { id = 99 }))
  agent.send("unknown form: " .. tostring(unknown):match("expected"))
  agent.wait_for_message{ timeout = 30 }
  agent.end_session()
end
