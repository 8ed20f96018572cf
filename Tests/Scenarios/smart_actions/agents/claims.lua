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
  local broken = agent.request_smart_action{ type = "verification", timeout = 20 }
  local bad_type = select(2, pcall(agent.request_smart_action, { type = "selfie" }))
  agent.send_file{ name = "invoice.pdf", mime_type = "application/pdf", data = "%PDF-1.4 invoice 42" }
  local refused = select(2, pcall(agent.send_file, { name = "tool.exe", mime_type = "application/x-msdownload", data = "MZ" }))
  agent.send(string.format("text=%s photos=%d screenshot=%s video_bytes=%d verified=%s screen_share=%s again=%s:%s",
    got.text.result.text, #got.photo.media, got.screenshot.media[1].name, got.video.media[1].size,
    tostring(got.verification.result.verified), tostring(got.screen_share.result.screen_share),
    again.status, again.result.decline_reason))
  agent.send("broken=" .. broken.status .. " " .. tostring(broken.result.decline_reason:find("face not recognised", 1, true) ~= nil))
  agent.send("refused=" .. refused.code .. " bad_type=" .. tostring(bad_type):match("expected") )
  local types = { jpg = "image/jpeg", png = "image/png", gif = "image/gif", webp = "image/webp", mp4 = "video/mp4",
                  mov = "video/quicktime", avi = "video/x-msvideo", wmv = "video/x-ms-wmv", webm = "video/webm",
                  mp3 = "audio/mpeg", wav = "audio/wav", m4a = "audio/mp4", weba = "audio/webm", pdf = "application/pdf",
                  doc = "application/msword", xls = "application/vnd.ms-excel", ppt = "application/vnd.ms-powerpoint",
                  csv = "text/csv", txt = "text/plain" }
  local sent = 0
  for extension, mime_type in pairs(types) do
    agent.send_file{ name = "sample." .. extension, mime_type = mime_type, data = "bytes of " .. extension }
    sent = sent + 1
  end
  local mismatch = select(2, pcall(agent.send_file, { name = "report.pdf", mime_type = "text/csv", data = "x" }))
  agent.send("files=" .. sent .. " mismatch=" .. mismatch.code)
  repeat
    local message = agent.wait_for_message{ timeout = 30 }
  until not message or message.text == "bye"
  agent.end_session()
end
