-- Browsing the queue menus of the built-in company against the embedded sandbox.
local menus, direct = ccai.queue_menu.get{ language = "es" }
assert(direct == false and #menus == 5, "five visible queues")
assert(menus[1].name == "Facturación", "names in the requested language")

local internet = menus:find_menu(22)
assert(internet and internet.name == "Internet" and internet.channels.voice_call.recording_option == "never",
       "find_menu walks the whole tree")
assert(menus:find_menu(404) == nil)
-- A dot for the colon is named as the mistake it is.
local ok, err = pcall(menus.find_menu, 9)
assert(not ok and err.code == "invalid_argument" and err.message:find("call it with a colon", 1, true), tostring(err))
local ok2, err2 = pcall(menus[1].get_enabled_channels)
assert(not ok2 and err2.message:find("menu:get_enabled_channels()", 1, true), tostring(err2))
assert(not pcall(menus.find_menu, menus, "22"), "find_menu checks its argument")

local billing = menus:find_menu(1)
local kinds = {}
for _, channel in ipairs(billing:get_enabled_channels()) do kinds[channel.type] = channel end
assert(kinds.email and kinds.email.address == "billing@acme.test", "e-mail channel")
assert(kinds.external_deflection and kinds.external_deflection.display_name == "Help Center", "enabled links only")
-- What the app would open (seed 002, "Email" and "External deflection links").
local draft = billing:compose_email()
assert(draft.to == "billing@acme.test" and draft.body == "Add your account number", ccai.json.encode(draft))
assert(draft.url == "mailto:billing@acme.test?body=Add%20your%20account%20number", draft.url)
local links = billing:get_deflection_links()
assert(#links == 1 and links[1].display_name == "Help Center" and links[1].url == "https://help.acme.test", "enabled links only")
assert(menus:find_menu(8):compose_email() == nil and #menus:find_menu(8):get_deflection_links() == 0, "Overflow has neither")
local ok3, err3 = pcall(billing.compose_email)
assert(not ok3 and err3.message:find("menu:compose_email()", 1, true), tostring(err3))
if billing.channels.chat.enabled then
  assert(kinds.chat and billing.redirection_extra == nil, "open: chat is offered")
else
  assert(not kinds.chat and billing.redirection_extra.menu_id == 7, "closed: redirected to the night desk")
  assert(billing.channels.chat.deflected_reason == "after_hours")
end

local vip, is_direct = ccai.queue_menu.get{ key = "vip" }
assert(is_direct and #vip == 1 and vip[1].hidden == true, "a direct access key reaches a hidden queue")

local waits = ccai.queue_menu.get_wait_times{ menu_id = billing.id }
local typo, said = pcall(ccai.queue_menu.get, { langauge = "es" })
assert(not typo and said.code == "invalid_argument" and said.message:find("did you mean 'language'", 1, true), tostring(said))
assert(waits.chat == 10 and waits.voice_call == 10, "nobody waits: the published 10 s")
local ok, err = pcall(ccai.queue_menu.get_wait_times, 404)
assert(not ok and err.code == "not_found" and err.status == 404)
ccai.log.info("menus scenario passed")
