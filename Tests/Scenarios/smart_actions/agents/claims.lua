-- Asks for every smart action type, then sends a file and sums up what it got.
return function(agent, session)
  agent.send("Hi, I'm Sam. I need a few things.")
  local got = {}
  for _, type in ipairs({ "text", "photo", "screenshot", "video", "verification", "screen_share" }) do
    local action = agent.request_smart_action{ type = type, timeout = 20 }
    assert(action and action.status == "finished", type .. " ended " .. tostring(action and action.status))
    got[type] = action
  end
  local again = agent.request_smart_action{ type = "text", timeout = 20 }
  local bad_type = select(2, pcall(agent.request_smart_action, { type = "selfie" }))
  agent.send_file{ name = "invoice.pdf", mime_type = "application/pdf", data = "%PDF-1.4 invoice 42" }
  local refused = select(2, pcall(agent.send_file, { name = "tool.exe", mime_type = "application/x-msdownload", data = "MZ" }))
  agent.send(string.format("text=%s photos=%d screenshot=%s video_bytes=%d verified=%s screen_share=%s again=%s:%s",
    got.text.result.text, #got.photo.media, got.screenshot.media[1].name, got.video.media[1].size,
    tostring(got.verification.result.verified), tostring(got.screen_share.result.screen_share),
    again.status, again.result.decline_reason))
  agent.send("refused=" .. refused.code .. " bad_type=" .. tostring(bad_type):match("expected") )
  repeat
    local message = agent.wait_for_message{ timeout = 30 }
  until not message or message.text == "bye"
  agent.end_session()
end
