-- Smart actions answered by the plugin beside this file, attachments and their limits,
-- pre-session requirements. Run: ccai run Tests/Scenarios/smart_actions/scenario.lua
--   --sandbox Tests/Scenarios/smart_actions/sandbox.lua
local function from_agent(pattern)
  local batch = ccai.chat.wait_for("messages_received", { timeout = 20, match = function(messages)
    local m = messages[1]
    return m.sender.type == "agent" and (not pattern or (m.text and m.text:find(pattern)) or (m.media and pattern == "media"))
  end })
  return batch[1]
end

local requested = {}
ccai.smart_action.on("requested", function(action) requested[#requested + 1] = action.type end)
ccai.initialize_chat()

-- 1. An agent asks for every type; the plugin answers each, the host sends and finishes it.
local chat = ccai.chat.start{ menu_id = 1 }
from_agent("^Hi, I'm Sam")
local summary = from_agent("^text=")
assert(summary.text == "text=ACME-1234 photos=2 screenshot=screen.png video_bytes=4096 verified=true screen_share=true again=failed:already given",
  summary.text)
assert(from_agent("^refused=").text == "refused=invalid_argument bad_type=expected")
local file = from_agent("media").media
assert(file.type == "document" and file.name == "invoice.pdf" and file.mime_type == "application/pdf")
local download = ccai.chat.download_media(file.id, { media_type = file.type })
assert(download.data == "%PDF-1.4 invoice 42" and download.file_name == "invoice.pdf", "download_media gives bytes and name")
assert(#requested == 7, "every request reached the script too: " .. #requested)
local actions = ccai.smart_action.get_smart_actions()
assert(#actions == 7 and actions[1].type == "text" and actions[1].result.text == "ACME-1234")
for i = 1, 6 do assert(actions[i].status == "finished", actions[i].type .. " is " .. actions[i].status) end
assert(actions[2].result.media_ids and #actions[2].result.media_ids == 2, "both photos are the photo action's result")

-- Answering a final action again is a conflict; a result of the wrong kind a bad argument.
local ok, err = pcall(ccai.smart_action.update_smart_action_status, { smart_action_id = actions[1].id, status = "failed" })
assert(not ok and err.code == "conflict", tostring(err))
ok, err = pcall(ccai.smart_action.update_smart_action_status, { smart_action_id = actions[1].id, status = "maybe" })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("options.status"), tostring(err))
ok, err = pcall(ccai.smart_action.notify_smart_action_received, { smart_action_id = 99999 })
assert(not ok and err.code == "not_found", tostring(err))
ccai.chat.send_message("bye")
ccai.chat.wait_for("state_changed", { timeout = 10, match = function(e) return e.status == "ended" end })

-- 2. Attachments of the end user, with the limits.
ccai.chat.start{ menu_id = 3 }
from_agent("^Hi, I'm Uma")
local sent = { ccai.chat.send_message{ images = { { data = "GIF89a" .. string.rep("x", 100), mime_type = "image/gif", name = "a.gif" },
                                                  { data = "GIF89a" .. string.rep("y", 100), mime_type = "image/gif" } } } }
assert(#sent == 2 and sent[1].media.name == "a.gif" and sent[1].media.size == 106 and sent[2].type == "media")
assert(from_agent('^Thanks, I received your image "a.gif"'))
ok, err = pcall(ccai.chat.send_message, { images = { { data = string.rep("x", 3 * 1024 * 1024), mime_type = "image/gif" } } })
assert(not ok and err.code == "too_large" and err.message:find("at most 2 MB"), tostring(err))
ok, err = pcall(ccai.chat.send_message, { videos = { { data = string.rep("v", 21 * 1024 * 1024), mime_type = "video/mp4" } } })
assert(not ok and err.code == "too_large" and err.message:find("at most 20 MB"), tostring(err))
-- A JPEG over 2 MB because of its metadata goes through once the SDK strips it.
local exif = "\255\225\255\255" .. string.rep("e", 65533)
local picture = "\255\218\0\8" .. string.rep("p", 1500000) .. "\255\217"
local jpeg = "\255\216" .. string.rep(exif, 12) .. picture
assert(#jpeg > 2 * 1024 * 1024)
local compressed = ccai.chat.send_message{ images = { { data = jpeg, mime_type = "image/jpeg", name = "big.jpg" } } }
assert(compressed.media.size < 2 * 1024 * 1024 and compressed.media.size == #jpeg - 12 * 65537, compressed.media.size)
ok, err = pcall(ccai.chat.send_message, { images = { { path = "missing.png", mime_type = "image/png" } } })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("message.images%[1%].path"), tostring(err))
ok, err = pcall(ccai.chat.send_message, { images = { { data = "x", mime_type = "text/plain" } } })
assert(not ok and err.code == "invalid_argument", tostring(err))
ccai.chat.send_message("bye")
ccai.chat.wait_for("state_changed", { timeout = 10, match = function(e) return e.status == "ended" end })

-- 3. Pre-session smart actions: the host answers them through the plugin, then enqueues.
local devices = ccai.chat.start{ menu_id = 2 }
assert(devices.status ~= "pending", "start enqueued the chat: " .. devices.status)
assert(from_agent("^pre%-session").text == "pre-session text:finished:ACME-1234 photo:finished:2 file")
ccai.chat.end_chat()

-- ... or the script answers them itself and enqueues when it is done.
local pending = ccai.chat.start{ menu_id = 2, enqueue = false }
assert(pending.status == "pending")
local before = ccai.smart_action.get_smart_actions()
assert(#before == 2 and before[1].pre_session and before[1].status == "requested")
local text, photo = before[1], before[2]
ok, err = pcall(ccai.smart_action.update_smart_action_status, { smart_action_id = photo.id, status = "finished" })
assert(not ok and err.code == "conflict" and err.message:find("an image sent for it"), tostring(err))
ok, err = pcall(ccai.smart_action.send_smart_action_result, { smart_action_id = photo.id, result = { text = "no" } })
assert(not ok and err.code == "invalid_argument", tostring(err))
ccai.smart_action.notify_smart_action_received{ smart_action_id = text.id }
ccai.smart_action.send_smart_action_result{ smart_action_id = text.id, result = { text = "typed by hand" } }
ccai.smart_action.update_smart_action_status{ smart_action_id = text.id, status = "finished" }
ccai.smart_action.send_smart_action_result{ router = { id = pending.id, type = "chat" }, smart_action_id = photo.id,
  result = { decline_reason = "no camera" } }
ccai.smart_action.update_smart_action_status{ smart_action_id = photo.id, status = "failed" }
ccai.chat.enqueue_current_chat()
assert(ccai.chat.get_current_chat().status ~= "pending")
assert(from_agent("^pre%-session").text == "pre-session text:finished:typed by hand photo:failed:no camera")
ccai.chat.end_chat()

local history = ccai.chat.get_previous_chats(1)
local media = 0
for _, message in ipairs(history.messages) do if message.media then media = media + 1 end end
assert(media >= 9, "the files are in the history: " .. media)
ccai.log.info("smart actions scenario passed")
