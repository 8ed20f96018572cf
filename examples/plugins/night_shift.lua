-- A deflection plugin: decides where a customer goes before a session starts.
-- ccai.plugins.evaluate_deflection(menu, { channel = "chat" }) asks every plugin in
-- priority order; the first non-nil answer wins, else the SDK's default applies.
local long_wait = 15 * 60

return {
  name = "night-shift",
  version = "1.0.0",
  priority = 10,

  on_load = function(ctx)
    ccai.log.info("night-shift plugin ready", { file = ctx.file })
  end,

  deflection = function(menu, ctx)
    -- Closed or over capacity: follow the admin's redirection, with a friendlier message.
    local redirect = ctx.redirection_extra
    if redirect and redirect.menu_id then
      return { action = "redirect", menu_id = redirect.menu_id,
               message = "Our night desk will take it from here (" .. ctx.now_local.hour .. "h in "
                 .. ctx.now_local.time_zone .. ")." }
    end
    -- Open, but a long queue on chat: offer the help center instead.
    local waits = ctx.wait_times or {}
    if ctx.channel == "chat" and (waits.chat or 0) > long_wait then
      return { action = "url", url = "https://help.acme.test", display_name = "Help Center",
               message = "The wait is long right now." }
    end
    if ctx.deflected then
      return nil   -- no opinion: the next plugin, or the SDK's default, decides
    end
    return { action = "allow", message = "Someone will be with you shortly." }
  end,
}
