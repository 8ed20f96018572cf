-- Logging a user out, as seed 000's "Check and clear sessions" says: all three steps, or
-- the next user inherits the previous one's session.
--   ccai run examples/logout.lua
ccai.initialize_chat()
local me = ccai.end_user.fetch()
print("signed in as " .. me.display_name)
ccai.chat.start{ menu_id = 8 }

local function log_out()
  -- 1. End the session in progress, if any (an orphaned chat blocks the next one).
  local active = ccai.chat.get_last_chat_in_progress()
  if active then
    ccai.chat.end_chat()
    print("ended chat " .. active.id)
  end
  -- 2. Clear the auth token: the platform revokes it, the SDK forgets it.
  local token = ccai.auth.get_auth_token()
  ccai.auth.update_auth_token(nil)
  -- 3. Clear the end user record.
  ccai.end_user.update_end_user(nil)
  return token
end

local old_token = log_out()
assert(ccai.auth.get_auth_token() == nil and ccai.end_user.get_end_user() == nil, "nothing of the user is left")
print("logged out; the old token " .. (old_token and "is revoked" or "was absent"))
