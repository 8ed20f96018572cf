-- The sandbox of the Locust peer benchmark (bench/locust/README.md): the built-in company's
-- Night Desk (menu 7) with its virtual agent Nova, as in the built-in configuration
-- (Sources/CCAISandbox/Configuration/BuiltInConfiguration.swift), and per-end-user limits
-- lifted so that a benchmark measures the clients, not the limiter. Serve it with
--   ccai sandbox serve --config bench/locust/sandbox.lua --listen 127.0.0.1:PORT
-- and point both ccai run and Locust at it.
return {
  company = {
    name = "Acme", support_email = "help@acme.test", languages = { "en", "es" },
    time_zone = "America/Los_Angeles", prevent_direct_pstn_call = false,
    key = "dev-key", secret = "dev-secret", jwt_algorithms = { "HS384", "HS256" },
    post_session = { csat = true },
  },
  handle_time_seconds = 300,
  chat_timeout_seconds = 1800,
  menus = {
    { id = 7, name = { en = "Night Desk", es = "Turno de noche" }, position = 4,
      hours = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true },
      channels = { chat = { virtual_agent = "night-va" } }, post_session = { csat = false } },
  },
  -- The human agent a customer asking for one is handed to (the built-in company's Ben).
  agents = {
    { name = "Ben", menus = { 7 } },
  },
  virtual_agents = {
    ["night-va"] = {
      name = "Nova",
      rules = {
        { keywords = { "hours", "open" },
          answer = "Our day desks are open 9:00-17:00, Monday to Friday (Los Angeles time). I'm here around the clock." },
        { keywords = { "refund", "refunds" }, answer = "Refunds reach your card within 5 business days." },
        { keywords = { "password", "login", "sign in" }, answer = "You can reset your password from the sign-in page." },
      },
      escalation_options = { { id = 1, deflection_channel = "chat" }, { id = 2, deflection_channel = "email" } },
    },
  },
  -- Far above what 1,000 users reach in an hour (each limit is per end user, sign-ins per
  -- company too); retention stays at its defaults.
  limits = {
    requests_per_second = 1e9, burst = 1e9,
    chats_per_hour = 1000000000, stored_bytes_per_hour = 1000000000000,
    uploads_per_hour = 1000000000, upload_bytes_per_hour = 1000000000000, screen_shares_per_hour = 1000000000,
    sign_ins_per_minute = 1000000000, company_sign_ins_per_second = 1e9, company_sign_in_burst = 1e9,
    event_streams_per_end_user = 16,
  },
}
