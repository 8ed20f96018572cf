-- Quick start: a script against the embedded sandbox (the platform emulator that
-- `ccai run` starts in-process), a plugin, and the runtime every scenario builds on.
-- Run it with: ./scripts/run examples/quickstart.lua --env CUSTOMERS=3

-- 1. The SDK. The host authenticates this script's end user ("vu-1") on first use by
--    signing a JWT with the company secret, as an app's backend would.
local company = ccai.company.get()
local me = ccai.end_user.get_end_user()
ccai.log.info("connected", { company = company.display_name, languages = company.languages,
                             end_user = me.identifier })

-- Errors are values with a code, the service and the method: pcall catches them.
local ok, err = pcall(ccai.auth.authenticate, "not-a-jwt")
ccai.log.info("a refused JWT is a clear error", { ok = ok, code = err.code, message = err.message })

-- 2. Queue menus and a deflection decision. The plugins in examples/plugins (loaded
--    because they sit beside this script) decide where a customer goes; without an
--    answer from them, the SDK's default applies.
local menus = ccai.queue_menu.get{}
local billing = menus:find_menu(1)
local offers = {}
for _, channel in ipairs(billing:get_enabled_channels()) do offers[#offers + 1] = channel.type end
local decision = ccai.plugins.evaluate_deflection(billing, { channel = "chat" })
ccai.log.info("billing", { offers = offers, decision = decision.action, by = decision.plugin or "sdk default",
                           message = decision.message })

-- 3. A chat where the plugin's decision sends us: billing (Ava) in business hours, the
--    night desk after hours, where the virtual agent Nova answers first and hands over to
--    Ben when asked for a human. The sandbox's agents answer by themselves; events arrive
--    as they happen.
ccai.initialize_chat()
local queue = decision.action == "redirect" and decision.menu_id or billing.id
ccai.chat.start{ menu_id = queue }
local function agent_says()
  local batch = ccai.chat.wait_for("messages_received", { timeout = 10, match = function(messages)
    return messages[1].sender.type == "agent" or messages[1].sender.type == "virtual_agent" end })
  return batch[1].sender.name .. ": " .. batch[1].text
end
ccai.log.info("chat", { queue = queue, says = agent_says() })
if ccai.chat.check_status().virtual_agent then
  ccai.chat.send_message("How long do refunds take?")
  ccai.log.info("chat", { says = agent_says() })
  ccai.chat.send_message("Can I talk to a human, please?")
  ccai.log.info("chat", { says = agent_says() })
  ccai.log.info("chat", { says = agent_says() })
end
ccai.chat.send_message("Where is my order 4417?")
ccai.log.info("chat", { says = agent_says() })
ccai.chat.send_message("Great, thanks. Bye!")
ccai.log.info("chat", { says = agent_says() })
ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.status == "ended" end })

-- 4. Tasks. Three synthetic customers run at once; ccai.sleep suspends only its own task
--    (no thread is blocked), and the main chunk waits for all of them.
local customers = tonumber(ccai.env.CUSTOMERS or "3")

local function customer(n)
  local started = ccai.now()
  ccai.sleep(0.05 * n)
  local ticket = ccai.uuid()
  ccai.log.info("customer done", { customer = n, ticket = ticket })
  return { customer = n, ticket = ticket, seconds = ccai.now() - started }
end

local tasks = {}
for n = 1, customers do
  tasks[n] = ccai.spawn(customer, n)
end

local results = {}
for n, task in ipairs(tasks) do
  results[n] = task:wait(10)                 -- the customer's result, or its error raised here
end

print(ccai.json.encode({ company = company.display_name, customers = results }, { pretty = true }))
