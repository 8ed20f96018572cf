-- Offers a callback instead of a long wait on the phone: when a queue that books
-- callbacks estimates a wait over max_wait_seconds for a call, the app shows "We'll call
-- you back" instead of putting the customer on hold. Any other case is left to the SDK's
-- default (a queue's redirection, an after-hours message, or allow).
return {
  name = "callback-on-long-waits", version = "1.0.0",
  config = { max_wait_seconds = 120 },
  deflection = function(menu, ctx)
    if ctx.channel ~= "voice_call" or not ctx.wait_times then return nil end
    local wait = ctx.wait_times.voice_call
    local voice = menu.channels and menu.channels.voice_call
    if wait and wait > ctx.config.max_wait_seconds and voice and voice.schedule_enabled then
      return { action = "schedule_call",
               message = string.format("The wait is about %d minutes: we can call you back instead.", math.ceil(wait / 60)) }
    end
  end,
}
