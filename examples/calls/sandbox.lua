-- The sandbox of the calls example: one phone queue that asks callers about recording,
-- and Vic, whose script (agents/phone_agent.lua, relative to this file) takes its calls.
-- A second queue records every call and is served by the default agent behaviour.
return {
  company = { name = "Acme Phone", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  handle_time_seconds = 120,
  menus = {
    { id = 1, name = "Phone support", channels = { voice_call = { instant = true, recording = "ask_user" } } },
    { id = 2, name = "Recorded line", channels = { voice_call = { instant = true, recording = "always" } } },
  },
  agents = {
    { name = "Vic", menus = { 1 }, script = "agents/phone_agent.lua" },
    { name = "Rae", menus = { 2 } },
  },
}
