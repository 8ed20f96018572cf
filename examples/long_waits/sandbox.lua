-- The sandbox of the long-waits example: Acme's support line, open weekdays 09:00-17:00
-- (UTC), takes instant calls and callbacks in 30-minute slots. Its agent is not on the
-- phone yet (no agent serves the line), so a caller waits: with a handle time of 300 s,
-- one caller waiting is an estimate of 310 s (the published formula adds 10 s). clock_start puts the run on a Monday
-- morning, the line open.
return {
  company = { name = "Acme Support", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  clock_start = "2026-12-07T09:10:00Z",
  handle_time_seconds = 300,
  menus = {
    { id = 5, name = "Support line",
      hours = { mon = "09:00-17:00", tue = "09:00-17:00", wed = "09:00-17:00", thu = "09:00-17:00", fri = "09:00-17:00" },
      channels = { voice_call = { instant = true, schedule = true, recording = "never",
        scheduling = { slot_minutes = 30, days_ahead = 2, notice_minutes = 15 } } } },
  },
}
