-- Reads the reserved CRM flags of the session's signed custom data.
return function(agent, session)
  agent.send(string.format("crm: verified=%s bad_actor=%s repeat=%s", tostring(session.crm.verified_customer),
                           tostring(session.crm.bad_actor), tostring(session.crm.repeat_customer)))
  agent.end_session()
end
