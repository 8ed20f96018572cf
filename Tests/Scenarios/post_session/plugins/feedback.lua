-- Post-session hooks for plugins.lua: each queue of sandbox.lua exercises one branch.
local ratings = 0
return {
  name = "feedback", version = "1.0.0", priority = 0,
  post_session = function(session, ctx)
    if session.menu_id == 1 then return "none" end         -- Support: no feedback, by choice
    local tier = ctx.custom_data.signed.membership_tier    -- VIPs (signed custom data): their account
    if tier and tier.value == "Platinum" then return "none" end  -- manager calls them instead
    if session.menu_id == 11 then return ctx.flow end      -- Returns: what the hierarchy chose
    return nil                                             -- others: the configured flow
  end,
  post_session_opt_in = function(session, ctx) return session.menu_id == 4 end,
  survey = function(survey, ctx)                          -- the "support" survey of sandbox.lua
    assert(#survey.questions == 5, "the whole survey")
    return { [1] = "5", [2] = 4, [3] = "billing", [4] = "10", [5] = "Κάλλιστα" }
  end,
  csat = function(session, ctx)
    ratings = ratings + 1
    if ratings == 1 then return { rating = 9 } end         -- out of range: reported, not sent
    return { rating = 5, feedback = string.format("Quick, %s, for %s (%s)", ctx.flow.type, ctx.end_user.identifier,
                                                  ctx.custom_data.unsigned.device and ctx.custom_data.unsigned.device.value or "-") }
  end,
}
