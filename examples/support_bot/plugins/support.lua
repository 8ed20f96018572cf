-- Plays the customer's app for what the agent asks: the policy number from the plugin's
-- config, the receipt photo from this folder, and the contact form.
return {
  name = "support-bot",
  version = "1.0.0",
  config = { policy = "POL-20931", name = "Jane Roe", email = "jane@example.test" },
  smart_actions = {
    text = function(action, ctx) return { text = ctx.config.policy } end,
    photo = function(action, ctx)
      return { images = { { path = "receipt.png", mime_type = "image/png", name = "receipt.png" } } }
    end,
    ["*"] = function(action) return { decline = "this bot cannot do " .. action.type } end,
  },
  forms = {
    [10] = function(form, ctx)
      return { [1] = ctx.config.name, [2] = ctx.config.email, [3] = "email", [4] = true }
    end,
  },
}
