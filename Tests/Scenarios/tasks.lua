-- Tasks, sleeps, waits, cancellation and errors, as a scenario author uses them.
local sleeping, most = 0, 0
local tasks = {}
for i = 1, 10 do
  tasks[i] = ccai.spawn(function(n)
    sleeping = sleeping + 1
    most = math.max(most, sleeping)
    ccai.sleep(0.5)
    sleeping = sleeping - 1
    return n * n
  end, i)
end
local sum = 0
for _, task in ipairs(tasks) do sum = sum + task:wait(60) end
assert(sum == 385, "sum of squares")
assert(most == 10, "the ten tasks slept at the same time")

local failing = ccai.spawn(function() error({ code = "conflict", message = "chat already in progress" }) end)
local ok, err = pcall(failing.wait, failing)
assert(not ok and err.code == "conflict", "a task's error reaches its waiter")

local forever = ccai.spawn(function() while true do ccai.sleep(0.01) end end)
assert(forever:cancel() == true, "cancel a suspended task")
local ok2, err2 = pcall(forever.wait, forever)
assert(not ok2 and err2.code == "cancelled", "waiters hear of the cancellation")

local slow = ccai.spawn(function() ccai.sleep(3600) end)
local ok3, err3 = pcall(slow.wait, slow, 0.05)
assert(not ok3 and err3.code == "timeout", "wait times out")
slow:cancel()

local ok4, err4 = pcall(ccai.spawn, "not a function")
assert(not ok4 and err4.code == "invalid_argument", "spawn checks its argument")
ccai.log.info("tasks scenario passed")
