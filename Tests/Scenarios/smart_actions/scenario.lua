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

local function ended(chat)
  ccai.chat.wait_for("chat_received", { timeout = 10, match = function(e) return e.id == chat.id and e.status == "ended" end })
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
assert(from_agent("^broken=").text == "broken=failed true", "a failing handler fails the action with its reason")
assert(from_agent("^refused=").text == "refused=invalid_argument bad_type=expected")
local file = from_agent("media").media
assert(file.type == "document" and file.name == "invoice.pdf" and file.mime_type == "application/pdf")
local download = ccai.chat.download_media(file.id, { media_type = file.type })
assert(download.data == "%PDF-1.4 invoice 42" and download.file_name == "invoice.pdf", "download_media gives bytes and name")
assert(#requested == 8, "every request reached the script too: " .. #requested)
assert(from_agent("^files=").text == "files=19 mismatch=invalid_argument")
local kinds = {}
for _, message in ipairs(ccai.chat.get_messages()) do
  if message.media and message.sender.type == "agent" and message.media.name:find("^sample") then
    kinds[message.media.type] = (kinds[message.media.type] or 0) + 1
  end
end
assert(kinds.photo == 4 and kinds.video == 5 and kinds.audio == 4 and kinds.document == 6, "the 19 agent file types")
local actions = ccai.smart_action.get_smart_actions()
assert(#actions == 8 and actions[1].type == "text" and actions[1].result.text == "ACME-1234")
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
ended(chat)

-- 2. Attachments of the end user, with the limits.
local uploads = ccai.chat.start{ menu_id = 3 }
from_agent("^Hi, I'm Uma")
local sent = { ccai.chat.send_message{ images = { { data = "GIF89a" .. string.rep("x", 100), mime_type = "image/gif", name = "a.gif" },
                                                  { data = "GIF89a" .. string.rep("y", 100), mime_type = "image/gif" } } } }
assert(#sent == 2 and sent[1].media.name == "a.gif" and sent[1].media.size == 106 and sent[2].type == "media")
assert(from_agent('^Thanks, I received your image "a.gif"'))
-- Over 2 MB the SDK re-encodes the image; bytes it cannot decode are an invalid argument.
ok, err = pcall(ccai.chat.send_message, { images = { { data = string.rep("x", 3 * 1024 * 1024), mime_type = "image/gif" } } })
assert(not ok and err.code == "invalid_argument" and err.message:find("could not be decoded as an image"), tostring(err))
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
ended(uploads)

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

-- 4. Forms: the plugin fills the contact form and the refund web form; the script answers
-- the others itself.
local forms = ccai.chat.start{ menu_id = 4 }
assert(from_agent("^contact:").text == "contact: 1=Jane Roe 2=jane@example.test 3=+1 415 555 0100 4=34 5=2026-11-29 6=phone 7=sms 8=true 9=billing,repair 10=It fell.\nThen it broke.")
assert(from_agent("^refund:").text == "refund: completed 1=120.5 2=broken on arrival (Form submitted successfully)")
local feedback = ccai.chat.wait_for("messages_received", { timeout = 20, match = function(m) return m[1].form ~= nil and m[1].form.id == 11 end })[1]
assert(feedback.type == "form" and feedback.text == "Feedback" and feedback.event == "formRequested")
local details = ccai.chat.get_custom_form_details(feedback.form)
assert(details.questions[1].type == "number" and details.questions[1].required)
local id = feedback.form.smart_action_id
ok, err = pcall(ccai.chat.submit_custom_form, { smart_action_id = id, form_response = { { question_id = 1, value = "9" } } })
assert(not ok and err.code == "invalid_argument" and err.message:find("at most 5"), tostring(err))
ok, err = pcall(ccai.chat.submit_custom_form, { smart_action_id = id, form_response = {} })
assert(not ok and err.code == "invalid_argument" and err.message:find("required"), tostring(err))
ccai.chat.submit_custom_form{ smart_action_id = id, form_response = { { question_id = 1, value = "4" } } }
ok, err = pcall(ccai.chat.submit_custom_form, { smart_action_id = id, form_response = { { question_id = 1, value = "5" } } })
assert(not ok and err.code == "conflict", tostring(err))
assert(from_agent("^feedback:").text == "feedback: 1=4")

local consent = ccai.chat.wait_for("messages_received", { timeout = 20, match = function(m)
  return m[1].web_form ~= nil and m[1].web_form.external_form_id == "consent" end })[1]
local web = ccai.chat.fetch_web_form(consent.web_form)
assert(web.external_form_id == "consent" and web.title == "Consent" and ccai.chat.validate_web_form(web))
local forged = { type = "form_complete", signature = web.signature .. "x", data = { smart_action_id = web.smart_action_id,
  status = "success", timestamp = "2026-11-30T12:00:00Z", details = { message = "forged" } } }
ok, err = pcall(ccai.chat.send_message, { form_complete = forged })
assert(not ok and err.code == "forbidden", tostring(err))
local tampered = { smart_action_id = web.smart_action_id, external_form_id = web.external_form_id, url = web.url,
                   signature = "1.abc", expires_at = web.expires_at }
assert(ccai.chat.validate_web_form(tampered) == false)
forged.signature = web.signature
forged.data.details.message = "I agree"
local complete = ccai.chat.send_message{ form_complete = forged }
assert(complete.type == "form_complete" and complete.text == "I agree")
assert(ccai.chat.validate_web_form(web) == false, "an answered form is no longer valid")
assert(from_agent("^consent:").text == "consent: completed")
assert(from_agent("^rating:").text == "rating: failed (The form could not be completed)")
local plugin = ccai.plugins.list()[1]
assert(plugin.errors[#plugin.errors]:find("forms.rating: question 1 %(Stars%): a number expected"), plugin.errors[#plugin.errors])
assert(from_agent("^unknown form:").text == "unknown form: expected")
ccai.chat.send_message("bye")
ended(forms)
ccai.log.info("forms scenario passed")

-- 5. Screen share: the agent asks, the app creates a session and sends its code, the agent
-- joins, the customer starts it and allows remote control; then declines a second one;
-- then shares on their own initiative.
ok, err = pcall(ccai.screen_share.create, { initiated_from = "agent" })
assert(not ok and err.code == "not_initialized" and err.message:find("ccai.initialize_screen_share", 1, true)
       and err.service == "screen_share" and err.method == "create", tostring(err))
ccai.initialize_screen_share{ key = "dev-key" }
assert(ccai.screen_share.get_state() == "none")
local cobrowse = ccai.chat.start{ menu_id = 5 }
assert(cobrowse.is_supporting_screen_share, "chats start screen-shareable once screen share is initialized")
local function screen_share_message(event)
  return ccai.chat.wait_for("messages_received", { timeout = 20, match = function(m)
    return m[1].type == "screen_share" and m[1].event == event end })[1]
end
local function state(expected)
  return ccai.screen_share.wait_for("state", { timeout = 20, match = function(s) return s == expected end })
end
screen_share_message("screen_share_requested_from_agent")
local session = ccai.screen_share.create{ communication_id = cobrowse.id, initiated_from = "agent" }
assert(session.state == "pending" and #session.code == 6 and session.initiated_from == "agent")
ok, err = pcall(ccai.screen_share.create, { initiated_from = "agent" })
assert(not ok and err.code == "conflict", tostring(err))
ok, err = pcall(ccai.screen_share.activate, { accepted = true })
assert(not ok and err.code == "conflict", "no agent has joined yet: " .. tostring(err))
ccai.chat.send_message{ screen_share = { event = "screen_share_code_generated", response = session } }
state("authorizing")
assert(ccai.screen_share.get_state() == "authorizing")
assert(ccai.screen_share.activate{ accepted = true }.state == "active")
assert(ccai.screen_share.wait_for("request", { timeout = 20 }) == "remote_control")
assert(ccai.screen_share.enable_remote_control(true).remote_control == true)
assert(from_agent("^screen share").text == "screen share active remote=true code=" .. session.code)
assert(from_agent("^while active").text == "while active: conflict")
assert(ccai.screen_share.enable_full_device_sharing(true).full_device == true)
assert(ccai.screen_share.end_session().state == "ended")
state("ended")
ok, err = pcall(ccai.screen_share["end"])
assert(not ok and err.code == "conflict", tostring(err))
ccai.screen_share.clear()
assert(ccai.screen_share.get_state() == "none" and ccai.screen_share.get_current_session() == nil)
ccai.chat.send_message("done sharing")

screen_share_message("screen_share_requested_from_agent")
session = ccai.screen_share.create{ initiated_from = "agent" }
ccai.chat.send_message{ screen_share = { event = "screen_share_code_generated", response = session } }
state("authorizing")
assert(ccai.screen_share.activate(false).state == "ended", "declined")
state("ended")
assert(from_agent("^second").text == "second ended")

ccai.screen_share.clear()
ccai.chat.send_message{ screen_share = { event = "screen_share_requested_from_end_user" } }
session = ccai.screen_share.create{ initiated_from = "end_user" }
ccai.chat.send_message{ screen_share = { event = "screen_share_code_generated", response = session } }
assert(ccai.screen_share.wait_for("request", { timeout = 20, match = function(r) return r == "session" end }))
assert(ccai.screen_share.activate().state == "active", "the agent joined on its own")
ccai.chat.send_message("bye")
state("ended")
assert(ccai.screen_share.get_current_session().state == "ended", "the share ends with the chat")

local unshareable = ccai.chat.start{ menu_id = 5, is_screen_shareable = false }
assert(from_agent("screen share").text == "no screen share")
ended(unshareable)
ccai.chat.start{ menu_id = 3, is_screen_shareable = false }
ok, err = pcall(ccai.screen_share.create, { initiated_from = "end_user" })
assert(not ok and err.code == "conflict" and err.message:find("screen%-shareable"), tostring(err))
ccai.chat.end_chat()
ccai.log.info("screen share scenario passed")

-- During a call, the agent's requests (text, verification: a call carries no files) reach
-- the same plugin, whose handlers see ctx.call_id.
ccai.initialize_call{ play_audible_messages = false }
local phone = ccai.call.start_instant_call{ menu_id = 6 }
ccai.call.wait_for("call_received", { timeout = 30, match = function(c) return c.id == phone.id and c.status == "ended" end })
local asked = ccai.smart_action.get_smart_actions{ router = { id = phone.id, type = "call" } }
assert(#asked == 2 and asked[1].call_id == phone.id and asked[1].chat_id == nil, #asked .. " actions")
assert(asked[1].type == "text" and asked[1].status == "finished" and asked[1].result.text == "call " .. phone.id)
assert(asked[2].type == "verification" and asked[2].status == "finished" and asked[2].result.verified == true)
ok, err = pcall(ccai.smart_action.update_smart_action_status, { router = { id = phone.id, type = "call" }, smart_action_id = asked[1].id,
                                                                 status = "failed" })
assert(not ok and err.code == "conflict", "a final action takes no more changes: " .. tostring(err))
ok, err = pcall(ccai.smart_action.get_smart_actions, { router = { id = phone.id + 1000, type = "call" } })
assert(not ok and err.code == "not_found", tostring(err))
ccai.log.info("call smart actions scenario passed")
