-- The sandbox of the scheduling example: a callback queue open Monday 09:00-10:00 (UTC)
-- in five-minute slots, and Sam, who takes its calls with the default agent behaviour.
-- clock_start starts business time 15 seconds before the queue opens, so the first slot
-- comes due while the example runs.
return {
  company = { name = "Acme Callbacks", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
  clock_start = "2026-12-07T08:59:45Z",
  menus = {
    { id = 5, name = "Call me back", hours = { mon = "09:00-10:00" },
      channels = { voice_call = { instant = true, schedule = true, recording = "ask_user",
        scheduling = { slot_minutes = 5, calls_per_slot = 1, days_ahead = 1, ring_seconds = 60 } } } },
  },
  agents = { { name = "Sam", menus = { 5 } } },
}
