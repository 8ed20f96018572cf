-- luacheck: std +sandbox
-- The contact center of examples/staffing/day.lua: one Support queue open 08:00-18:00 on
-- weekdays (Los Angeles time) with 16 agents of one chat at a time (or --env AGENTS=N),
-- the staffing plan the day is checked against; after hours Support deflects to Nova, a virtual agent on the
-- After-hours queue. Customers rate each chat (csat). The per-end-user limits are lifted:
-- a day of traffic is many chats and sign-ins per end user.
-- Check it with: ccai sandbox check examples/staffing/sandbox.lua [--env AGENTS=14]
local weekdays = { mon = "08:00-18:00", tue = "08:00-18:00", wed = "08:00-18:00", thu = "08:00-18:00",
                   fri = "08:00-18:00", sat = false, sun = false }
local always = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true }

local count = tonumber(env.AGENTS or "16")
assert(count and count >= 1 and count % 1 == 0, "--env AGENTS: a whole number of agents expected, got " .. tostring(env.AGENTS))
local agents = {}
for number = 1, count do
  agents[number] = { name = string.format("Agent %02d", number), menus = { 1 }, max_chats = 1 }
end

return {
  company = {
    name = "Acme", support_email = "help@acme.test", languages = { "en" },
    time_zone = "America/Los_Angeles", key = "dev-key", secret = "dev-secret",
    post_session = { csat = true },
  },
  handle_time_seconds = 360,
  limits = {
    requests_per_second = 10000, burst = 100000,
    chats_per_hour = 100000,
    sign_ins_per_minute = 10000,
    stored_bytes_per_hour = 1073741824,
  },
  menus = {
    { id = 1, name = { en = "Support" }, position = 1, hours = weekdays,
      after_hours_message = { en = "Support is open 8:00-18:00 on weekdays. Nova can help now." },
      channels = { chat = {} }, deflection = { after_hours = 2 } },
    { id = 2, name = { en = "After hours" }, position = 2, hours = always,
      channels = { chat = { virtual_agent = "nova" } }, post_session = { csat = false } },
  },
  agents = agents,
  virtual_agents = {
    nova = {
      name = "Nova",
      rules = {
        { keywords = { "order", "delivery" }, answer = "Your order is on its way: track it from your account." },
      },
    },
  },
}
