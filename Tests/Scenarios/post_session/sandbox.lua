-- Overlapping post-session rules: CSAT company-wide, a survey on Support (inherited by
-- Returns), a post-session virtual agent on Escalations (it wins over the survey), none
-- on Quiet, CSAT with opt-in on Opt-in, a scripted post-session virtual agent on Scripted;
-- Phone takes calls, with the company's CSAT.
local always = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true }
return {
  company = { name = "Feedback Co", languages = { "en", "el" }, time_zone = "Europe/Athens",
              key = "dev-key", secret = "dev-secret", post_session = { csat = true } },
  hours = always,
  admin_token = "admin-secret",
  menus = {
    { id = 1, name = "Support", channels = { chat = {} }, post_session = { survey = "support" },
      children = {
        { id = 11, name = "Returns", channels = { chat = {} } },
        { id = 12, name = "Escalations", channels = { chat = {} }, post_session = { virtual_agent = "feedback" } },
      } },
    { id = 2, name = "Sales", channels = { chat = {} } },
    { id = 3, name = "Quiet", channels = { chat = {} }, post_session = { csat = false } },
    { id = 4, name = "Opt-in", channels = { chat = {} }, post_session = { opt_in = true } },
    { id = 5, name = "Scripted", channels = { chat = {} }, post_session = { virtual_agent = "scripted-feedback" } },
    { id = 6, name = "Phone", channels = { voice_call = { instant = true } } },
  },
  agents = { { name = "Ada", menus = { 1, 11, 12, 2, 3, 4, 5, 6 } } },
  virtual_agents = {
    feedback = { name = "Quinn", rules = { { keywords = { "great" }, answer = "Glad to hear it!" } } },
    ["scripted-feedback"] = { name = "Sage", script = "agents/feedback.lua" },
  },
  surveys = {
    support = { sign_off_display_text = { en = "Thanks!", el = "Ευχαριστούμε!" }, questions = {
      { id = 1, type = "csat", text = { en = "How did we do?", el = "Πώς τα πήγαμε;" }, required = true },
      { id = 2, type = "star_rating", text = "Stars for your agent" },
      { id = 3, type = "enumeration", text = "Topic", options = { "billing", "delivery" }, required = true },
      { id = 4, type = "numeric_scale", text = "Recommend us?", min = 0, max = 10 },
      { id = 5, type = "free_text", text = "Anything else?" },
    } },
  },
}
