-- ccai.apps: the platform's published Apps API, as a company's server calls it, against the
-- embedded sandbox's built-in company (Overflow: the agent Ben; Night Desk: the virtual agent Nova).

--- The chat once `ready(chat)` holds, polled (the server has no event stream without webhooks).
local function until_chat(id, ready)
  for _ = 1, 200 do
    local chat = ccai.apps.get_chat(id)
    if ready(chat) then return chat end
    ccai.sleep(0.05)
  end
  error("chat " .. id .. " never got there")
end

local waits = ccai.apps.wait_times{ lang = "en", menu_id = 8 }
assert(#waits == 1 and waits[1].menu_id == 8 and waits[1].menu_type == "mobile_menu", "one menu's wait times")
assert(waits[1].materialized_path == "Overflow" and waits[1].chat == 10 and waits[1].logged_in_agents == 1, "its fields")

local user = ccai.apps.upsert_end_user{ identifier = "apps-scenario", name = "Jo" }
assert(type(user.id) == "number" and user.identifier == "apps-scenario", "an end user")
assert(ccai.apps.get_end_user{ identifier = "apps-scenario" }.id == user.id, "found by identifier")
assert(ccai.apps.upsert_end_user{ identifier = "apps-scenario", email = "jo@x.test" }.id == user.id, "an upsert")

-- A virtual agent's chat, escalated by the option that deflects to e-mail.
local chat = ccai.apps.start_chat{ end_user_id = user.id, menu_id = 7, lang = "en", context = { order = "A-1" } }
assert(chat.status == "queued" or chat.status == "assigned", "started: " .. chat.status)
assert(chat.end_user.id == user.id and chat.menus[1].name == "Night Desk", "the published chat object")
local with_nova = until_chat(chat.id, function(c) return c.status_text == "with_virtual_agent" end)
assert(with_nova.virtual_agent.name == "Nova" and with_nova.virtual_agent.status == "connected", "Nova has it")
local sent = ccai.apps.send_message{ chat_id = chat.id, content = "What are your hours?" }
assert(sent.chat_id == chat.id and sent.content == "What are your hours?", "the message")
local deflected = ccai.apps.escalate{ chat_id = chat.id, escalation_id = 2 }
assert(deflected.status == "finished" and deflected.status_text == "deflected" and deflected.ends_at ~= nil, "deflected to e-mail")

-- A human agent's chat, finished by the server.
local second = ccai.apps.start_chat{ end_user_id = user.id, menu_id = 8 }
until_chat(second.id, function(c) return c.status_text == "with_agent" end)
local finished = ccai.apps.finish_chat(second.id)
assert(finished.status == "finished" and finished.status_text == "finished_by_end_user", "finished")
assert(finished.all_agents[1].name == "Ben" and finished.all_agents[1].status == "disconnected", "Ben was there")

-- Failures are ccai.Errors naming the service and method.
local ok, err = pcall(ccai.apps.get_chat, 987654)
assert(not ok and err.code == "not_found" and err.service == "apps" and err.method == "get_chat", "not found: " .. tostring(err))
ok, err = pcall(ccai.apps.finish_chat, second.id)
assert(not ok and err.code == "conflict", "finished twice: " .. tostring(err))
ok, err = pcall(ccai.apps.send_message, { chat_id = second.id })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("content"), "a missing field: " .. tostring(err))
ok, err = pcall(ccai.apps.start_chat, { end_user_id = user.id, menu_id = 8, context = { 1, 2 } })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("context"), "a list as context: " .. tostring(err))
ok, err = pcall(ccai.apps.wait_times, { lang = "en", wait_frm = 3 })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("wait_from"), "a misspelled field: " .. tostring(err))
ccai.log.info("apps scenario passed")
