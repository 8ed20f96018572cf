-- Answers every smart action type the way a customer's app would; the second text
-- request is declined.
local texts, verifications = 0, 0
local png = "\137PNG\r\n\26\n" .. string.rep("\0", 64)

return {
  name = "claims-answers",
  version = "1.0.0",
  config = { account_number = "ACME-1234" },
  smart_actions = {
    text = function(action, ctx)
      if ctx.call_id then return { text = "call " .. ctx.call_id } end   -- asked during a call
      if not ctx.pre_session then
        texts = texts + 1
        if texts > 1 then return { decline = "already given" } end
      end
      return { text = ctx.config.account_number }
    end,
    photo = function(action, ctx)
      return { images = { { data = png, mime_type = "image/png", name = "front.png" },
                          { data = png, mime_type = "image/png", name = "back.png" } } }
    end,
    screenshot = function() return { images = { { path = "screen.png", mime_type = "image/png" } } } end,
    video = function() return { videos = { { data = string.rep("v", 4096), mime_type = "video/mp4", name = "clip.mp4" } } } end,
    verification = function(action, ctx)
      if ctx.call_id then return { verified = action.call_id == ctx.call_id } end
      verifications = verifications + 1
      if verifications > 1 then error("face not recognised") end   -- a failing handler fails the action
      return { verified = true }
    end,
    screen_share = function() return { screen_share = true } end,
  },
  forms = {
    [10] = function(form, ctx)
      assert(form.title == "Contact details" and #form.questions == 10 and form.smart_action_id and form.kind == "custom")
      return { [1] = "Jane Roe", [2] = "jane@example.test", [3] = "+1 415 555 0100", [4] = 34, [5] = "2026-11-29",
               [6] = "phone", [7] = "sms", [8] = true, [9] = { "billing", "repair" }, [10] = "It fell.\nThen it broke." }
    end,
    refund = function(form)
      assert(form.kind == "web" and form.url:find("^https://forms.claims.test/refund%?smart_action_id=") and form.signature)
      return { [1] = 120.5, [2] = "broken on arrival" }
    end,
    rating = function() return { [1] = "lots" } end,   -- not a number: the host refuses it
  },
}
