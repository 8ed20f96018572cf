-- A sandbox whose agents run scripts (paths relative to this file), open around the clock.
return {
  company = { name = "Scripted", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  menus = {
    { id = 1, name = "Echo", channels = { chat = { redaction = true } } },
    { id = 2, name = "Broken", channels = { chat = {} } },
    { id = 3, name = "Patient", channels = { chat = {} } },
  },
  agents = {
    { name = "Echo", menus = { 1 }, script = "echo.lua" },
    { name = "Oops", menus = { 2 }, script = "broken.lua" },
    { name = "Pat", menus = { 3 }, script = "patient.lua" },
  },
}
