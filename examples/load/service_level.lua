-- A service-level test in the open model: customers arrive at 120 a minute for a minute
-- (Poisson-spaced, from a fixed seed, so two runs see the same arrivals), whatever the
-- agents' speed, on the Overflow queue of examples/load/sandbox.lua (three agents, at most
-- two chats each). Each customer waits for an agent, asks a question, reads the answer,
-- ends the chat and rates it. The run passes when
--   - 80% of the customers were taken by an agent within 20 seconds (the 80/20 service level),
--   - 95% of them got the agent's first message within 5 seconds,
--   - more than 95% of the checks passed (a customer no agent took fails "an agent greeted"),
--   - no arrival was dropped for want of a free VU.
-- A scenario cannot name its sandbox yet (options.sandbox is refused), so give it with
-- --sandbox: the default limits (60 chats an hour per end user, ...) are too low for a
-- load test. It takes a little over a minute:
--   ./scripts/run examples/load/service_level.lua --sandbox examples/load/sandbox.lua
-- and for CI (docs/ci.md):
--   ccai run examples/load/service_level.lua --sandbox examples/load/sandbox.lua \
--     --out junit=results.xml --summary-out summary.json --quiet
-- Exit status 0: every threshold held; 99: one failed (the summary marks it with ✗).
-- The same run in three processes against one served sandbox: docs/scenarios.md, "Scale out".

-- The top level runs once in each VU's state.
ccai.initialize_chat()

-- The oldest agent message of this chat after the message numbered `after` (nil after
-- `timeout` seconds). Events are kept until a wait_for takes them, so a message that
-- arrived before the wait is found too; matching the chat and the sequence skips what an
-- earlier chat of the same VU left behind.
local function agent_message(chat_id, after, timeout)
  local ok, batch = pcall(ccai.chat.wait_for, "messages_received", { timeout = timeout, match = function(messages)
    for _, m in ipairs(messages) do
      if m.chat_id == chat_id and m.sequence > after and m.sender.type == "agent" then return true end
    end
    return false
  end })
  if not ok then return nil end
  for _, m in ipairs(batch) do
    if m.chat_id == chat_id and m.sequence > after and m.sender.type == "agent" then return m end
  end
end

local questions = {
  "My order 1042 has not arrived yet",
  "I was charged twice for the same invoice",
  "How do I change the address on my account?",
  "Can I return a gift without a receipt?",
}

return {
  options = {
    vus = 5,                                      -- made before the first arrival; more as needed
    arrival = { rate = 120, time_unit = "1m", duration = "1m", max_vus = 50, poisson = true },
    graceful_stop = "30s",
    timeout = "3m",
    thresholds = {
      chat_wait_seconds = "p(80) < 20",           -- service level 80/20
      chat_first_response_seconds = "p(95) < 5",
      checks = "rate > 0.95",
      dropped_iterations = "count == 0",          -- max_vus was enough for the arrivals
    },
  },

  run = function(ctx)
    local chat = ccai.chat.start{ menu_id = 8 }
    ccai.check(chat, { ["chat queued"] = function(c) return c.status == "queued" end })

    local greeting = agent_message(chat.id, 0, 30)
    ccai.check(greeting, "an agent greeted")

    ccai.sleep(1)                                 -- the customer types
    local question = ccai.chat.send_message(questions[(ctx.vu + ctx.iteration) % #questions + 1])
    ccai.check(agent_message(chat.id, question.sequence, 15), "the agent answered the question")

    ccai.sleep(1)                                 -- the customer reads
    ccai.chat.end_chat()

    -- CSAT (company-wide in the sandbox): the ratings are the built-in csat_rating metric.
    ccai.chat.start_post_session()
    ccai.chat.ready_post_session()
    local rating = 3 + (ctx.vu + ctx.iteration) % 3
    ccai.check(pcall(ccai.rate.rate, { communication_id = chat.id, communication_type = "chats", rating = rating }),
      "the chat was rated")
  end,
}
