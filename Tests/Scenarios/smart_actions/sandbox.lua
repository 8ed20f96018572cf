-- Smart actions, attachments and pre-session requirements (run with --sandbox, from the
-- scenario beside it; agent script paths are relative to this file).
return {
  company = { name = "Claims Co", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  menus = {
    { id = 1, name = "Claims", channels = { chat = {} } },
    { id = 2, name = "Devices", pre_session_smart_action = true, pre_session_smart_action_types = { "text", "photo" },
      channels = { chat = {} } },
    { id = 3, name = "Uploads", channels = { chat = {} } },
    { id = 4, name = "Forms", channels = { chat = {} } },
    { id = 5, name = "Co-browse", channels = { chat = {} } },
    { id = 6, name = "Phone claims", channels = { voice_call = { instant = true } } },
  },
  agents = {
    { name = "Sam", menus = { 1 }, script = "agents/claims.lua" },
    { name = "Pia", menus = { 2 }, script = "agents/presession.lua" },
    { name = "Uma", menus = { 3 } },
    { name = "Fay", menus = { 4 }, script = "agents/forms.lua" },
    { name = "Cole", menus = { 5 }, script = "agents/screen_share.lua" },
    { name = "Cal", menus = { 6 }, script = "agents/phone_claims.lua" },
  },
  custom_forms = {
    { id = 10, title = "Contact details", questions = {
      { id = 1, type = "text", text = "Name", required = true },
      { id = 2, type = "email", text = "E-mail", required = true },
      { id = 3, type = "phone", text = "Phone" },
      { id = 4, type = "number", text = "Age", min = 18, max = 120 },
      { id = 5, type = "date", text = "Date of the incident" },
      { id = 6, type = "dropdown", text = "Product", options = { { value = "phone" }, { value = "tablet" } } },
      { id = 7, type = "radio", text = "Contact by", options = { { value = "email" }, { value = "sms" } } },
      { id = 8, type = "checkbox", text = "I accept the terms", required = true },
      { id = 9, type = "multiple_choice", text = "Topics", options = { { value = "billing" }, { value = "repair" } } },
      { id = 10, type = "long_text", text = "What happened?" } } },
    { id = 11, title = "Feedback", questions = { { id = 1, type = "number", text = "Score", required = true, min = 1, max = 5 } } },
  },
  web_forms = {
    { external_form_id = "refund", title = "Refund request", url = "https://forms.claims.test/refund",
      questions = { { id = 1, type = "number", text = "Amount", required = true, min = 1 },
                    { id = 2, type = "text", text = "Reason" } } },
    { external_form_id = "consent", title = "Consent", url = "https://forms.claims.test/consent" },
    { external_form_id = "rating", title = "Rating", questions = { { id = 1, type = "number", text = "Stars", min = 1, max = 5 } } },
  },
}
