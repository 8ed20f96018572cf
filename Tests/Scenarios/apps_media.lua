-- ccai.apps photos and videos: the three steps of the chat platform API (a pre-signed upload
-- URL, the PUT, the add) in one call, the chat's files listed, and the refusals.

local user = ccai.apps.upsert_end_user{ identifier = "apps-media" }
local chat = ccai.apps.start_chat{ end_user_id = user.id, menu_id = 8 }
local bytes = "PNG\0\1\2\255 bytes of a photo"

local photo = ccai.apps.send_photo{ chat_id = chat.id, data = bytes, mime_type = "image/png", name = "receipt.png" }
assert(type(photo.id) == "number" and photo.mime_type == "image/png" and photo.size == #bytes, "the photo: " .. photo.mime_type)
assert(photo.name == "receipt.png" and photo.sender.type == "end_user", "sent as the end user")
assert(type(photo.url) == "string" and photo.url:find("/apps/api/v1/media/" .. photo.id, 1, true), "a download URL")

local video = ccai.apps.send_video{ chat_id = chat.id, data = "a video's bytes" }
assert(video.mime_type == "video/mp4" and video.name == nil, "the kind's default type")

local photos = ccai.apps.list_photos(chat.id)
assert(#photos == 1 and photos[1].id == photo.id and photos[1].message_id == photo.message_id, "listed")
local videos = ccai.apps.list_videos(chat.id)
assert(#videos == 1 and videos[1].id == video.id, "videos apart")

-- Failures are ccai.Errors naming the service and method.
local ok, err = pcall(ccai.apps.send_photo, { chat_id = chat.id, data = bytes, mime_type = "image/svg+xml" })
assert(not ok and err.code == "invalid_argument" and err.method == "send_photo", "an SVG: " .. tostring(err))
ok, err = pcall(ccai.apps.send_photo, { chat_id = chat.id, data = "" })
assert(not ok and err.code == "invalid_argument" and tostring(err):find("data"), "no bytes: " .. tostring(err))
ok, err = pcall(ccai.apps.send_photo, { chat_id = chat.id, data = string.rep("x", 2 * 1024 * 1024 + 1) })
assert(not ok and err.code == "too_large", "over 2 MiB: " .. tostring(err))
ok, err = pcall(ccai.apps.list_photos, 987654)
assert(not ok and err.code == "not_found" and err.method == "list_photos", "no such chat: " .. tostring(err))
ccai.apps.finish_chat(chat.id)
ok, err = pcall(ccai.apps.send_video, { chat_id = chat.id, data = "late" })
assert(not ok and err.code == "conflict", "the chat has ended: " .. tostring(err))
assert(#ccai.apps.list_photos(chat.id) == 1, "still listed once ended")
ccai.log.info("apps media scenario passed")
