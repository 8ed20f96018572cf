-- Post-session flows end to end against the embedded sandbox configured by sandbox.lua:
-- each branch of the hierarchy, inheritance, the transfer status through chat_received,
-- surveys and ratings valid and not, the post-session virtual agents, transcripts.
ccai.initialize_chat()

local function refused(code, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok and err.code == code, "expected " .. code .. ", got " .. tostring(err))
  return err
end

local ended_chat = require("chats").ended

local function transfer_status(chat, status)
  return ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c)
    return c.id == chat.id and c.post_session_transfer_status == status end })
end

-- CSAT from the company (Sales).
local sales = ended_chat(2)
assert(sales.post_session_required == true and sales.post_session_opt_in_required == false, "CSAT is configured")
assert(sales.post_session_transfer_status == nil, "not started")
local flow = ccai.chat.get_post_session_flow()
assert(flow.type == "csat" and flow.communication_id == sales.id and flow.communication_type == "chats", "company CSAT")
assert(ccai.rate.get_rate_target().communication_id == sales.id, "the ended chat awaits feedback")
refused("conflict", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats", rating = 5 })
refused("conflict", ccai.chat.ready_post_session)
assert(ccai.chat.start_post_session().post_session_transfer_status == "in_progress")
transfer_status(sales, "in_progress")
refused("conflict", ccai.chat.start_post_session)
assert(ccai.chat.ready_post_session().post_session_transfer_status == "ready")
transfer_status(sales, "ready")
refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats", rating = 6 })
refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats", rating = 0 })
refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats" })
refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "emails", rating = 4 })
-- The binding accepts what the SDK rates (RateService.ratedTypes: chats and calls); a chat's
-- id is no call of this end user's.
local calls = refused("not_found", ccai.rate.rate, { communication_id = sales.id, communication_type = "calls", rating = 4 })
assert(calls.message:find("no call", 1, true), calls.message)
local typo = refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats", ratting = 4 })
assert(typo.message:find("unknown field 'ratting' (did you mean 'rating'?)", 1, true), typo.message)
local emails = refused("invalid_argument", ccai.rate.rate, { communication_id = sales.id, communication_type = "emails", rating = 4 })
assert(emails.message:find("'chats' or 'calls' expected", 1, true), emails.message)
refused("not_found", ccai.rate.get_survey, { communication_id = sales.id, communication_type = "chats" })
ccai.rate.rate{ communication_id = sales.id, communication_type = "chats", rating = 4, feedback = "Quick and kind" }
transfer_status(sales, "completed")
refused("conflict", ccai.rate.rate, { communication_id = sales.id, communication_type = "chats", rating = 5 })
ccai.rate.clear_rate_target()
assert(ccai.rate.get_rate_target() == nil)

-- No flow (Quiet overrides the company's CSAT).
local quiet = ended_chat(3)
assert(quiet.post_session_required == false, "csat = false on the queue wins over the company")
assert(ccai.chat.get_post_session_flow() == nil)
refused("conflict", ccai.chat.start_post_session)

-- A survey inherited from Support (Returns), each question type valid and not.
local returns = ended_chat(11)
flow = ccai.chat.get_post_session_flow()
assert(flow.type == "survey" and flow.survey_id, "the survey wins over CSAT, inherited from the parent queue")
local survey = ccai.rate.get_survey{ communication_id = returns.id, communication_type = "chats" }
assert(survey.id == flow.survey_id and #survey.questions == 5 and survey.sign_off_display_text == "Thanks!")
assert(survey.questions[1].type == "csat" and survey.questions[1].required == true)
assert(survey.questions[3].options[2] == "delivery" and survey.questions[4].max == 10)
ccai.chat.start_post_session()
ccai.chat.ready_post_session()
local bad = refused("invalid_argument", ccai.rate.submit_survey, { communication_id = returns.id, communication_type = "chats",
  answers = { [1] = "9", [2] = "zero", [3] = "weather", [4] = "11", [5] = string.rep("x", 10001), [99] = "x" } })
for _, needle in ipairs({ "question 1", "question 2", "question 3", "question 4", "question 5", "question 99" }) do
  assert(bad.message:find(needle, 1, true), "every problem is named: " .. bad.message)
end
local missing = refused("invalid_argument", ccai.rate.submit_survey, { communication_id = returns.id, communication_type = "chats",
  answers = { [2] = "3" } })
assert(missing.message:find("question 1 (How did we do?): required", 1, true), missing.message)
ccai.rate.submit_survey{ communication_id = returns.id, communication_type = "chats",
  answers = { [1] = "5", [2] = 4, [3] = "delivery", [4] = "10", [5] = "Más rápido, παρακαλώ" } }
transfer_status(returns, "completed")
refused("conflict", ccai.rate.submit_survey, { communication_id = returns.id, communication_type = "chats",
  answers = { [1] = "5", [3] = "billing" } })

-- Opt-in: the chat says so.
local opt_in = ended_chat(4)
assert(opt_in.post_session_opt_in_required == true and ccai.chat.get_post_session_flow().type == "csat")

-- A post-session virtual agent wins over the inherited survey (Escalations): it talks
-- on the ended chat until the customer is done.
local escalations = ended_chat(12)
flow = ccai.chat.get_post_session_flow()
assert(flow.type == "virtual_agent" and flow.virtual_agent_id == "feedback")
ccai.chat.start_post_session()
ccai.chat.ready_post_session()
local joined = ccai.chat.wait_for("member_event", { timeout = 10, match = function(e) return e.identity == "Quinn" end })
assert(joined.type == "joined")
local function from(name, text)
  return ccai.chat.wait_for("messages_received", { timeout = 10, match = function(messages)
    return messages[1].sender.name == name and (text == nil or messages[1].text:find(text, 1, true)) end })[1]
end
from("Quinn", "Before you go")
ccai.chat.send_message("It was great")
from("Quinn", "Glad to hear it!")
ccai.chat.send_message("Goodbye")
from("Quinn", "Goodbye!")
transfer_status(escalations, "completed")
refused("conflict", ccai.chat.send_message, "still there?")

-- A scripted post-session virtual agent (session.post_session == true).
local scripted = ended_chat(5)
ccai.chat.start_post_session()
ccai.chat.ready_post_session()
from("Sage", "what should we improve?")
ccai.chat.send_message("Shorter waits")
from("Sage", "Thanks, noted: Shorter waits")
transfer_status(scripted, "completed")

-- The transcript of the last chat: a PDF.
local pdf = ccai.chat.download_chat_transcript_data()
assert(pdf:sub(1, 5) == "%PDF-", "a PDF")
local written = ccai.chat.download_chat_transcript{ to = ccai.env.TRANSCRIPT or "post_session_transcript.pdf" }
assert(written)
refused("invalid_argument", ccai.chat.download_chat_transcript, { to = "/tmp/x.pdf" })
refused("invalid_argument", ccai.chat.download_chat_transcript, { to = "../x.pdf" })
ccai.log.info("post_session scenario passed")
