-- Testing a bot, conversation by conversation (Botium's "convo" style, as Lua checks):
-- each row of utterances.csv is one customer who opens a chat on the built-in company's
-- Night Desk (queue 7, answered around the clock by the virtual agent Nova), says the
-- utterance and expects Nova's reply to contain the expected text. Every step is a
-- check, so the summary (and --out junit=FILE) lists each conversation's steps with
-- ✓ or ✗, and a failed step never stops the others.
--   ./scripts/run examples/bots/night_desk.lua
--   ccai run examples/bots/night_desk.lua --out junit=bots.xml --quiet    (CI: docs/ci.md)
-- Exit status 0: every step passed; 99: a step failed, or a row was not tested.
-- To test your own bot, point menu_id at its queue (in a sandbox of your own:
-- --sandbox FILE) and write its conversations as rows.

-- The top level runs once in each VU; the file is read once per run and shared.
local rows = ccai.data.csv("utterances.csv")   -- customer,utterance,expected

ccai.initialize_chat()

-- Waits for the first message of chat `chat_id` after the message numbered `after` from
-- the virtual agent or an agent (nil after `timeout` seconds). Events are kept until a
-- wait_for takes them, so matching the chat and the sequence skips the greeting and what
-- an earlier conversation of the same VU left behind.
local function reply(chat_id, after, timeout)
  local function wanted(m)
    return m.chat_id == chat_id and m.sequence > after
      and (m.sender.type == "virtual_agent" or m.sender.type == "agent")
  end
  local ok, batch = pcall(ccai.chat.wait_for, "messages_received", { timeout = timeout or 10, match = function(messages)
    for _, m in ipairs(messages) do if wanted(m) then return true end end
    return false
  end })
  if not ok then return nil end
  for _, m in ipairs(batch) do if wanted(m) then return m end end
end

-- One step of a conversation: the next reply after message `after` contains `text`
-- (plain text, not a Lua pattern). Records the check `name`; when it fails, the log says
-- what came instead (on standard error). Returns the reply.
local function expect_reply(chat_id, after, text, name)
  local message = reply(chat_id, after)
  local got = message and message.text
  if not ccai.check(got ~= nil and got:find(text, 1, true) ~= nil, name) then
    ccai.log.warn("unexpected reply", { step = name, expected = text, got = got or "(no reply in 10 s)" })
  end
  return message
end

return {
  -- One customer per row: VU n is the customer of row n and has one conversation. ccai
  -- gives an iteration only its VU's own count (ctx.iteration), not a run-wide number, so
  -- VUs sharing more iterations than there are VUs cannot tell which row is theirs: the
  -- VUs take the iterations as each is free, and a faster one takes more. With one VU
  -- per row, each VU takes one iteration; the iteration_failed threshold catches the
  -- unlikely VU that took a second one (and so a row that was left out).
  options = {
    vus = #rows,
    iterations = #rows,
    timeout = "2m",
    thresholds = { checks = "rate == 1", iteration_failed = "rate == 0" },
  },

  run = function(ctx)
    if ctx.iteration > 1 then error("VU " .. ctx.vu .. " took a second iteration: one row was not tested") end
    local row = rows[ctx.vu]
    local who = row.customer

    local chat = ccai.chat.start{ menu_id = 7 }
    ccai.check(chat, { ["the chat is queued"] = function(c) return c.status == "queued" end })

    expect_reply(chat.id, 0, "I'm Nova", "Nova greets the customer")

    local said = ccai.chat.send_message(row.utterance)
    expect_reply(chat.id, said.sequence, row.expected,
      string.format("%s: %q gets %q", who, row.utterance, row.expected))

    ccai.chat.end_chat()
    local ended = pcall(ccai.chat.wait_for, "chat_received", { timeout = 5, match = function(c)
      return c.id == chat.id and c.status == "ended" end })
    ccai.check(ended, "the chat ends")
  end,
}
