-- Quick start: the runtime every scenario builds on.
-- Run it with: ./scripts/run examples/quickstart.lua --env CUSTOMERS=3
--
-- Three synthetic customers run at once as tasks. Each "waits" a little (ccai.sleep
-- suspends only its own task; no thread is blocked), then reports back. The main chunk
-- waits for all of them and logs a JSON summary.

local customers = tonumber(ccai.env.CUSTOMERS or "3")
ccai.log.info("starting customers", { count = customers })

local function customer(n)
  local started = ccai.now()
  ccai.sleep(0.05 * n)                       -- suspends this task only
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
  results[n] = task:wait(10)                 -- returns customer's result, or raises its error
end

-- Errors are values with a code: pcall catches them.
local ok, err = pcall(ccai.sleep, -1)
ccai.log.info("a bad argument is a clear error", { ok = ok, code = err.code, message = err.message })

print(ccai.json.encode({ customers = results }, { pretty = true }))
