-- The sandbox of the support bot example: one claims queue whose agent, Sam, runs the
-- Lua script in agents/claims_agent.lua (paths are relative to this file).
return {
  company = { name = "Acme Insurance", support_email = "claims@acme.test", languages = { "en" }, time_zone = "UTC",
              key = "dev-key", secret = "dev-secret" },
  menus = {
    { id = 1, name = "Claims", channels = { chat = { redaction = true } } },
  },
  agents = {
    { name = "Sam", menus = { 1 }, script = "agents/claims_agent.lua" },
  },
  custom_forms = {
    { id = 10, title = "Contact details", questions = {
      { id = 1, type = "text", text = "Name", required = true },
      { id = 2, type = "email", text = "E-mail", required = true },
      { id = 3, type = "radio", text = "Contact me by", options = { { value = "email" }, { value = "phone" } } },
      { id = 4, type = "checkbox", text = "I accept the privacy policy", required = true } } },
  },
}
