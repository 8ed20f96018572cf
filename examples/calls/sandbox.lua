-- The sandbox of the calls example: one phone queue that asks callers about recording,
-- and Vic, whose script (agents/phone_agent.lua, relative to this file) takes its calls.
-- A second queue records every call and is served by the default agent behaviour.
-- voicemail.lua uses the next two: an after-hours line, and an overflow line no agent
-- serves, whose every wait is long enough to be offered voicemail instead.
-- virtual_agent.lua calls the last: a voice virtual agent answers first, and the caller
-- asks for a person.
local closed = { mon = false, tue = false, wed = false, thu = false, fri = false, sat = false, sun = false }
return {
  company = {
    name = "Acme Phone", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
    -- After a call someone talked on, the caller is asked for a CSAT rating (seed 000).
    post_session = { csat = true },
    -- Announcements of every queue's calls; a queue may override them kind by kind.
    audible_messages = {
      welcome = { text = "Thanks for calling Acme." },
      goodbye = { text = "Goodbye." },
    },
  },
  handle_time_seconds = 120,
  menus = {
    { id = 1, name = "Phone support", channels = { voice_call = { instant = true, recording = "ask_user" } } },
    { id = 2, name = "Recorded line", channels = { voice_call = { instant = true, recording = "always" } } },
    -- The phone number is the PSTN fallback and the voicemail box.
    { id = 3, name = "After hours", hours = closed,
      channels = { voice_call = { instant = true, phone_number = "+15550100" } } },
    { id = 4, name = "Overflow line",
      audible_messages = { all_agents_busy = { text = "All our agents are busy.", audio_url = "https://cdn.acme.test/busy.mp3" } },
      channels = { voice_call = { instant = true, phone_number = "+15550104",
        wait_deflection = { after_seconds = 0, offers = { "voicemail" }, message = "The wait is long: leave us a message?" } } } },
    -- Without a script, a voice virtual agent stays on the line until the caller asks for a
    -- person; allow_skip_virtual_agent also lets a waiting caller ask before it answers.
    { id = 5, name = "Assistant line",
      channels = { voice_call = { instant = true, virtual_agent = "phone-bot", allow_skip_virtual_agent = true } } },
  },
  agents = {
    { name = "Vic", menus = { 1 }, script = "agents/phone_agent.lua" },
    { name = "Rae", menus = { 2, 5 } },
  },
  virtual_agents = { ["phone-bot"] = { name = "Robin" } },
}
