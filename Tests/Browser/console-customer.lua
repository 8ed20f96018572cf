-- The customer of the console's browser test: a VU whose chat a person takes at the
-- console. It writes markup, which the console must show as text, and checks the answer.
ccai.initialize_chat()
return {
  options = { vus = 1, iterations = 1, thresholds = { checks = "rate == 1" } },
  run = function()
    ccai.chat.start{ menu_id = 1 }
    ccai.chat.send_message([[<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>]])
    local ok, batch = pcall(ccai.chat.wait_for, "messages_received", { timeout = 120, match = function(messages)
      return messages[1].sender.type == "agent" end })
    ccai.check(ok and batch[1].text == "Hello from the console", "the person at the console answered")
    ccai.chat.end_chat()
  end,
}
