-- A fleet of customers: each virtual user (VU) is one end user (vu-1, vu-2, ...) with its
-- own Lua state and SDK instance. They share 20 iterations; each iteration is one chat
-- with the built-in company's billing desk (queue 7 is open around the clock).
-- Run it with: ./scripts/run examples/load/customers.lua
-- or override the options: ./scripts/run examples/load/customers.lua --vus 10 --duration 30s

-- The top level runs once in each VU's state (k6's init code).
ccai.initialize_chat()

local function agent_message(timeout)
  local ok, batch = pcall(ccai.chat.wait_for, "messages_received", { timeout = timeout, match = function(messages)
    return messages[1].sender.type == "agent" or messages[1].sender.type == "virtual_agent" end })
  return ok and batch[1] or nil
end

return {
  options = { vus = 5, iterations = 20, thresholds = {
    checks = "rate > 0.95",                             -- exit 99 when more checks fail
    iteration_duration_seconds = "p(95) < 20",
  } },

  -- Once, before the VUs start; what it returns is ctx.data in every iteration.
  setup = function()
    return { greeting = "Hello, I have a question about my invoice" }
  end,

  run = function(ctx)
    local chat = ccai.chat.start{ menu_id = 7 }
    ccai.check(chat, { ["chat started"] = function(c) return c.status == "queued" end })
    ccai.chat.send_message(ctx.data.greeting .. " (customer " .. ctx.vu .. ", chat " .. ctx.iteration .. ")")
    ccai.check(agent_message(15), "an agent answered")
    ccai.chat.end_chat()
  end,

  teardown = function(data)
    ccai.log.info("done", { greeting = data.greeting })
  end,
}
