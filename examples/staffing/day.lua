-- A contact-center day in seconds: is 16 agents enough for the 80/20 service level?
-- Customers arrive all day long (Poisson, with a midday peak) on the Support queue of
-- examples/staffing/sandbox.lua, open 08:00-18:00; after 18:00 Support deflects them to
-- Nova, the after-hours virtual agent. A customer waits up to 5 minutes for an agent
-- (then gives up: `abandoned`), chats for an exponential time of 6 minutes on average,
-- ends the chat and rates it (CSAT). The run goes in virtual time from Monday 08:00 to
-- 19:30 (Los Angeles time), so the whole day takes seconds, and it replays alike from
-- its seed:
--   ./scripts/run examples/staffing/day.lua --sandbox examples/staffing/sandbox.lua
-- Options: --env AGENTS=14 (the plan: examples/staffing/sandbox.lua reads it), --env
-- PEAK=150 (customers an hour at the peak), --env HANDLE=8 (minutes a
-- chat lasts on average), --env FLAT=1 (the peak rate all day: the stationary queue that
-- Erlang C describes), --out html=day.html (the charts of the day), --seed N.
-- How to read the result, and Erlang C's estimate for the same plan: docs/virtual-time.md.

ccai.initialize_chat()

local peak = tonumber(ccai.env.PEAK or "120")          -- customers an hour at the peak
local handle = 60 * tonumber(ccai.env.HANDLE or "6")   -- seconds a chat lasts on average
local flat = ccai.env.FLAT == "1"
local patience = 300                                   -- seconds a customer waits for an agent

-- The periods of the day, and customers an hour in each: the morning, the midday peak,
-- the afternoon, the evening after Support has closed.
local function period_of(hour)
  if hour < 10 then return "morning" end
  if hour < 14 then return "peak" end
  if hour < 18 then return "afternoon" end
  return "evening"
end
local share = { morning = 1 / 2, peak = 1, afternoon = 2 / 3, evening = 1 / 4 }
local function rate_at(hour)
  return flat and peak or peak * share[period_of(hour)]
end

local within_20s = ccai.metrics.rate("answered_within_20s")   -- the service level, directly
local deflected = ccai.metrics.rate("deflected_after_hours")
local exponential = function(mean) return -math.log(1 - math.random()) * mean end

-- The first message of an agent (or of Nova) in this chat; nil after `timeout` seconds.
local function taken(chat_id, timeout)
  local ok, batch = pcall(ccai.chat.wait_for, "messages_received", { timeout = timeout, match = function(messages)
    for _, m in ipairs(messages) do
      if m.chat_id == chat_id and (m.sender.type == "agent" or m.sender.type == "virtual_agent") then return true end
    end
    return false
  end })
  return ok and batch or nil
end

return {
  options = {
    virtual_time = true,
    start = "2026-12-07T08:00",                        -- a Monday, in the company's time zone
    -- Arrivals at the peak rate, thinned below to the rate of the hour: a Poisson process
    -- whose rate follows the day (an arrival is kept with probability rate_at(hour) / peak).
    arrival = { rate = peak, time_unit = "1h", duration = "11h30m", max_vus = 100, poisson = true },
    graceful_stop = "1h",                              -- chats under way at 19:30 end normally
    timeout = "1d",                                    -- in simulated time: a stuck day ends anyway
    thresholds = {
      chat_wait_seconds = "p(80) < 20",                -- 80% of the day's customers taken within 20 s
      ["answered_within_20s{period:peak}"] = "rate >= 0.8",   -- and 80% of the peak's
      abandoned = "rate < 0.05",                       -- fewer than 5% gave up waiting
      csat_rating = "avg >= 4",
      dropped_iterations = "count == 0",               -- max_vus was enough for the arrivals
    },
  },

  setup = function()
    return { opened = ccai.now() }
  end,

  run = function(ctx)
    local hour = 8 + (ccai.now() - ctx.data.opened) / 3600
    if math.random() * peak > rate_at(hour) then return end   -- thinned: nobody came

    -- Support, or where its deflection sends the customer after hours.
    local support = ccai.queue_menu.get{}:find_menu(1)
    local decision = ccai.plugins.evaluate_deflection(support, { channel = "chat" })
    if decision.action == "redirect" then
      deflected:add(true)
      local chat = ccai.chat.start{ menu_id = decision.menu_id }
      ccai.chat.send_message("Where is my order?")
      ccai.check(taken(chat.id, 60), "Nova answered after hours")
      ccai.chat.end_chat()
      return
    end
    deflected:add(false)

    local arrived = ccai.now()
    local chat = ccai.chat.start{ menu_id = support.id }
    if not taken(chat.id, patience) then
      ccai.chat.end_chat()                             -- gave up: counted in `abandoned`
      return
    end
    local waited = ccai.now() - arrived
    within_20s:add(waited <= 20, { period = period_of(hour) })

    ccai.chat.send_message("Hello, my order has not arrived")
    ccai.sleep(exponential(handle))                    -- the conversation
    ccai.chat.end_chat()

    -- The customer's rating follows the wait.
    ccai.chat.start_post_session()
    ccai.chat.ready_post_session()
    local rating = waited <= 20 and 5 or waited <= 60 and 4 or waited <= 180 and 3 or 2
    ccai.check(pcall(ccai.rate.rate, { communication_id = chat.id, communication_type = "chats", rating = rating }),
      "the chat was rated")
  end,
}
