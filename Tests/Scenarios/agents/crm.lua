-- Reads the reserved CRM flags of the session's signed custom data, the order the adapter
-- lists the custom data in and whether the chat is verifiable.
return function(agent, session)
  agent.send(string.format("crm: verified=%s bad_actor=%s repeat=%s; adapter: %s; verifiable=%s",
                           tostring(session.crm.verified_customer), tostring(session.crm.bad_actor),
                           tostring(session.crm.repeat_customer), table.concat(session.display_order_in_adapter, ","),
                           tostring(session.is_verifiable)))
  agent.end_session()
end
