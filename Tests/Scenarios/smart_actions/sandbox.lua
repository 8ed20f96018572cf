-- Smart actions, attachments and pre-session requirements (run with --sandbox, from the
-- scenario beside it; agent script paths are relative to this file).
return {
  company = { name = "Claims Co", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  menus = {
    { id = 1, name = "Claims", channels = { chat = {} } },
    { id = 2, name = "Devices", pre_session_smart_action = true, pre_session_smart_action_types = { "text", "photo" },
      channels = { chat = {} } },
    { id = 3, name = "Uploads", channels = { chat = {} } },
  },
  agents = {
    { name = "Sam", menus = { 1 }, script = "agents/claims.lua" },
    { name = "Pia", menus = { 2 }, script = "agents/presession.lua" },
    { name = "Uma", menus = { 3 } },
  },
}
