-- The run the browser test watches (Tests/Browser/dashboard_test.py): customers arriving
-- at a steady rate, and a check whose name is markup, which the page must show as text.
ccai.initialize_chat()
return {
  options = {
    scenarios = {
      customers = { executor = "constant_arrival", rate = 4, time_unit = "1s", duration = "5m", max_vus = 8 },
    },
    thresholds = { checks = "rate > 0.9", chat_wait_seconds = "p(95) < 5" },
  },
  run = function()
    local chat = ccai.chat.start{ menu_id = 7 }
    ccai.check(chat, { ["chat started"] = function(c) return c.id ~= nil end })
    ccai.chat.send_message("What are your opening hours?")
    local ok = pcall(ccai.chat.wait_for, "messages_received", { timeout = 10 })
    ccai.check(ok, [[<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>]])
    ccai.chat.end_chat()
  end,
}
