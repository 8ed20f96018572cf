-- The sandbox of examples/load/service_level.lua: the built-in company, Acme, cut down to
-- its two queues open around the clock, with more agents on Overflow and the per-end-user
-- limits lifted. A load test makes many chats, sign-ins and requests per end user in a
-- short time: with the default limits (60 chats an hour per end user, 10 sign-ins a
-- minute, 50 requests a second) a served sandbox (ccai sandbox serve, for a run split in
-- segments) would answer 429 limit_exceeded long before the agents are the bottleneck.
-- The embedded sandbox of ccai run applies no default quota, only the ones set here.
-- Check it with: ccai sandbox check examples/load/sandbox.lua
local always = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true }
return {
  company = {
    name = "Acme", support_email = "help@acme.test", languages = { "en", "es" },
    time_zone = "America/Los_Angeles", key = "dev-key", secret = "dev-secret",
    jwt_algorithms = { "HS384", "HS256" },
    post_session = { csat = true },                 -- customers rate their chats (csat_rating)
  },
  handle_time_seconds = 300,
  chat_timeout_seconds = 1800,
  limits = {
    requests_per_second = 10000, burst = 100000,
    chats_per_hour = 100000,
    sign_ins_per_minute = 10000,
    stored_bytes_per_hour = 1073741824,             -- 1 GiB
  },
  menus = {
    { id = 7, name = { en = "Night Desk", es = "Turno de noche" }, position = 4, hours = always,
      channels = { chat = { virtual_agent = "night-va" } }, post_session = { csat = false } },
    { id = 8, name = { en = "Overflow", es = "Desborde" }, position = 5, hours = always,
      channels = { chat = {} } },
  },
  -- Three agents who answer every message (the sandbox's default agent behaviour), at most
  -- two chats each at once: a chat that finds all six places taken waits in the queue,
  -- and that wait is what chat_wait_seconds measures.
  agents = {
    { name = "Ben", menus = { 7, 8 }, max_chats = 2 },
    { name = "Cleo", menus = { 8 }, max_chats = 2 },
    { name = "Dev", menus = { 8 }, max_chats = 2 },
  },
  virtual_agents = {
    ["night-va"] = {
      name = "Nova",
      rules = {
        { keywords = { "hours", "open" },
          answer = "Our day desks are open 9:00-17:00, Monday to Friday (Los Angeles time). "
            .. "I'm here around the clock." },
        { keywords = { "refund", "refunds" },
          answer = "Refunds reach your card within 5 business days." },
        { keywords = { "password", "login", "sign in" },
          answer = "You can reset your password from the sign-in page." },
      },
      escalation_options = { { id = 1, deflection_channel = "chat" }, { id = 2, deflection_channel = "email" } },
    },
  },
}
