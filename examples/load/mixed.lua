-- Two kinds of customers in one run (k6's scenarios, in our names): chatters arrive at a
-- constant rate on the night desk (queue 7, where the virtual agent Nova answers), and
-- callers ramp up on the overflow line (queue 8, where Ben answers) from 30 s in. Groups
-- time each conversation; handle_summary prints a short report and writes the whole
-- summary to the output folder (--out-dir, else ccai-out).
-- Run it with: ./scripts/run examples/load/mixed.lua --virtual-time
ccai.initialize_chat()
ccai.initialize_call{ play_audible_messages = false }

return {
  options = {
    scenarios = {
      chatters = { executor = "constant_arrival", rate = 6, time_unit = "1m", duration = "2m", max_vus = 10 },
      callers = { executor = "ramping_arrival", exec = "call", start_time = "30s", time_unit = "1m", max_vus = 5,
                  stages = { { target = 4, duration = "1m" }, { target = 4, duration = "30s" } } },
    },
    thresholds = {
      ["iteration_failed{scenario:chatters}"] = "rate < 0.05",
      ["call_wait_seconds{scenario:callers}"] = "p(95) < 60",
      dropped_iterations = "count == 0",
    },
    -- One summary row per scenario under iterations, besides the defaults.
    summary_tags = { iterations = { "scenario" } },
  },

  -- The chatters' iterations (a scenario without exec runs run).
  run = function()
    ccai.group("chat", function()
      ccai.chat.start{ menu_id = 7 }
      local sent = ccai.chat.send_message("Where is my order?")
      local answer = ccai.chat.wait_for("messages_received", { timeout = 30, match = function(messages)
        return messages[1].sender.type == "virtual_agent" and messages[1].sequence > sent.sequence end })
      ccai.check(answer, "the virtual agent answered")
      ccai.chat.end_chat()
    end)
  end,

  call = function()
    ccai.group("call", function()
      ccai.call.start_instant_call{ menu_id = 8 }
      local taken = pcall(ccai.call.wait_for, "call_received", { timeout = 60, match = function(call)
        return call.status == "connected" end })
      ccai.check(taken, "an agent took the call")
      ccai.sleep(20)
      ccai.call.end_call()
    end)
  end,

  -- data is what --summary-out writes; the default summary is not printed.
  handle_summary = function(data)
    local lines = {}
    for _, metric in ipairs(data.metrics) do
      if metric.name == "iterations" or metric.name == "call_wait_seconds" then
        lines[#lines + 1] = metric.name .. " " .. ccai.json.encode(metric.values)
      end
    end
    return { stdout = table.concat(lines, "\n") .. "\n", ["mixed-summary.json"] = ccai.json.encode(data) }
  end,
}
