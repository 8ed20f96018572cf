-- A sandbox whose agents run scripts (paths relative to this file), open around the clock.
return {
  company = { name = "Scripted", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  menus = {
    { id = 1, name = "Echo", channels = { chat = { redaction = true } } },
    { id = 2, name = "Broken", channels = { chat = {} } },
    { id = 3, name = "Patient", channels = { chat = {} } },
    { id = 4, name = "Billing", channels = { chat = { virtual_agent = "billing-va" } } },
    { id = 5, name = "Scripted bot", channels = { chat = { virtual_agent = "scripted-va" } } },
    { id = 6, name = "Bot only", channels = { chat = { virtual_agent = "billing-va" } } },
    { id = 7, name = "Front desk", channels = { chat = {} } },
    { id = 8, name = "Mail only", channels = { email = { email = "mail@scripted.test" } } },
    { id = 9, name = "CRM", channels = { chat = {} } },
  },
  agents = {
    { name = "Echo", menus = { 1 }, script = "echo.lua" },
    { name = "Oops", menus = { 2 }, script = "broken.lua" },
    { name = "Pat", menus = { 3 }, script = "patient.lua" },
    { name = "Hana", menus = { 4, 5 } },
    { name = "Tom", menus = { 7 }, script = "transfer.lua" },
    { name = "Cora", menus = { 9 }, script = "crm.lua" },
  },
  virtual_agents = {
    ["billing-va"] = {
      name = "Billie",
      rules = {
        { keywords = { "refund", "refunds" }, answer = "Refunds take 5 days." },
        { keywords = { "opening hours" }, answer = "We are open 9 to 5." },
      },
      escalation_options = { { id = 123, deflection_channel = "email" }, { id = 7, deflection_channel = "chat" } },
    },
    ["scripted-va"] = { script = "virtual_agent.lua" },
  },
}
