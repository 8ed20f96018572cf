-- The sandbox of the console's browser test (Tests/Browser/console_test.py): Casey is
-- played by the person at the console; chats on the Help desk wait for them.
return {
  company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  admin_token = "browser-test-admin-token",
  menus = {
    { id = 1, name = "Help desk", channels = { chat = {} } },
    { id = 2, name = "Billing", channels = { chat = {} } },
  },
  agents = {
    { name = "Casey", menus = { 1 }, console = true },
    { name = "Bea", menus = { 2 } },
  },
  custom_forms = { { id = 10, title = "Contact details", questions = { { id = 1, type = "text", text = "Name" } } } },
}
