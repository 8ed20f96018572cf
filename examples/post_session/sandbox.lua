-- A shop open around the clock with overlapping post-session rules: CSAT company-wide,
-- the same survey on Orders and on VIP, and opt-in on VIP.
local always = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true }
return {
  company = { name = "Northwind", languages = { "en", "fr" }, time_zone = "Europe/Paris",
              key = "dev-key", secret = "dev-secret", post_session = { csat = true } },
  hours = always,
  menus = {
    { id = 1, name = { en = "Orders", fr = "Commandes" }, channels = { chat = {} }, post_session = { survey = "orders" } },
    { id = 2, name = "VIP", hidden = true, direct_access_keys = { "vip" }, channels = { chat = {} },
      post_session = { survey = "orders", opt_in = true } },
  },
  agents = { { name = "Léa", menus = { 1, 2 } } },
  surveys = {
    orders = { sign_off_display_text = { en = "Thank you!", fr = "Merci !" }, questions = {
      { id = 1, type = "csat", text = { en = "How satisfied are you?", fr = "Êtes-vous satisfait ?" }, required = true },
      { id = 2, type = "enumeration", text = "What was it about?", options = { "delivery", "refund", "other" }, required = true },
      { id = 3, type = "numeric_scale", text = "Would you recommend us?", min = 0, max = 10 },
      { id = 4, type = "free_text", text = "Anything else?" },
    } },
  },
}
