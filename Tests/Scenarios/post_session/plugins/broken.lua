-- A plugin whose post_session hook fails: reported with its name, the others still answer.
return {
  name = "broken", priority = 10,
  post_session = function(session, ctx) error("no feedback database") end,
}
