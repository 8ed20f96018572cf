-- Menu browser: prints the queue tree with what each queue offers right now.
-- ./scripts/run examples/menu_browser.lua --env LANGUAGE=es [--env KEY=vip]

local menus, direct = ccai.queue_menu.get{ key = ccai.env.KEY, language = ccai.env.LANGUAGE }
if direct then print("direct access point: " .. menus[1].name) end

local function describe(channel)
  if channel.type == "email" then return "email " .. (channel.address or "") end
  if channel.type == "external_deflection" then return channel.display_name .. " <" .. channel.url .. ">" end
  if channel.type == "schedule_call" and channel.deflection_type then
    return "schedule_call (" .. channel.deflection_type .. ")"
  end
  return channel.type
end

local function show(menu, depth)
  local offers = {}
  for _, channel in ipairs(menu:get_enabled_channels()) do offers[#offers + 1] = describe(channel) end
  local line = string.rep("  ", depth) .. menu.name .. " [" .. menu.id .. "]: "
    .. (#offers > 0 and table.concat(offers, ", ") or "nothing right now")
  local redirect = menu.redirection_extra
  if redirect then
    local target = menus:find_menu(redirect.menu_id)
    line = line .. " -> " .. (target and target.name or ("queue " .. redirect.menu_id))
      .. " (" .. redirect.deflection_type .. ")"
  end
  if menu.channels and menu.channels.chat or menu.channels and menu.channels.voice_call then
    local waits = ccai.queue_menu.get_wait_times{ menu_id = menu.id }
    line = line .. string.format("; waits: chat %ss, call %ss", waits.chat or "-", waits.voice_call or "-")
  end
  print(line)
  for _, child in ipairs(menu.children or {}) do show(child, depth + 1) end
end

for _, menu in ipairs(menus) do show(menu, 0) end
