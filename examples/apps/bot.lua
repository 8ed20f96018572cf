-- A conversation bot test through the platform's *published* API (docs/platform-fidelity.md):
-- each virtual user plays a company's server, as an integrator's backend would. It creates
-- its end user and a chat through ccai.apps (the Apps API), talks to the agent, and hears
-- back through the chat's signed webhooks, which the run receives (--webhook-listen) and
-- hands to the VU whose chat it is, as ccai.apps events.
--
-- Against the embedded sandbox (its webhooks come to the receiver by themselves):
--   ./scripts/run examples/apps/bot.lua --webhook-listen 127.0.0.1:0
-- Against a real tenant whose webhook URL reaches this host's port 8088:
--   CCAI_APPS_CREDENTIALS=acme:$TOKEN CCAI_WEBHOOK_SECRETS=$PRIMARY \
--   ccai run examples/apps/bot.lua --apps-host https://acme.example.com --webhook-listen 0.0.0.0:8088 --env MENU_ID=12

local menu_id = tonumber(ccai.env.MENU_ID) or 8   -- the built-in company's Overflow desk: the agent Ben

--- The next webhook `name` of `chat`, or nil after `timeout` seconds.
local function next_event(name, chat, timeout)
  local ok, event = pcall(ccai.apps.wait_for, name, { timeout = timeout, match = function(e) return e.chat_id == chat.id end })
  return ok and event or nil
end

return {
  options = { vus = 3, iterations = 6, thresholds = { checks = "rate == 1" } },

  run = function(ctx)
    local waits = ccai.apps.wait_times{ lang = "en", menu_id = menu_id }
    ccai.check(waits[1], { ["the menu has a chat wait"] = function(w) return w.chat ~= nil end })

    local user = ccai.apps.upsert_end_user{ identifier = ("apps-bot-%d-%d"):format(ctx.vu, ctx.iteration) }
    local chat = ccai.apps.start_chat{ end_user_id = user.id, menu_id = menu_id, lang = "en",
                                      context = { order = "A-" .. ctx.iteration } }
    ccai.check(next_event("chat_created", chat, 10), {
      ["chat_created arrives signed"] = function(e) return e.data.end_user.id == user.id end })
    ccai.check(next_event("agent_message", chat, 30), {
      ["the agent greets"] = function(e) return e and e.data.sender.type == "agent" end })

    ccai.apps.send_message{ chat_id = chat.id, content = "Where is my order?" }
    ccai.check(next_event("agent_message", chat, 30), {
      ["the agent answers the question"] = function(e) return e and e.data.content:find("order", 1, true) ~= nil end })

    ccai.apps.finish_chat(chat.id)
    ccai.check(next_event("chat_ended", chat, 10), {
      ["chat_ended says finished"] = function(e) return e and e.data.status == "finished" end })
  end,
}
