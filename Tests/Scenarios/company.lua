-- The SDK against the embedded sandbox: authentication happens on first use.
local company = ccai.company.get()
assert(company.display_name == (ccai.env.COMPANY or "Acme"), "company name")
assert(type(company.languages) == "table" and #company.languages >= 1, "languages")
assert(company.prevent_direct_pstn_call == false, "snake_case fields")

local me = ccai.end_user.get_end_user()
assert(me.identifier == (ccai.env.IDENTIFIER or "vu-1"), "the host authenticated the script's end user")

local ok, err = pcall(ccai.auth.authenticate, "not.a.jwt")
assert(not ok and err.code == "unauthenticated" and err.service == "auth" and err.method == "authenticate", "ccai.Error fields")
assert(tostring(err):find("^ccai%.auth%.authenticate: ") and tostring(err):find("%[unauthenticated%]$"), "tostring format")

ccai.end_user.update_end_user({ identifier = "vu-scenario-2", name = "Zoe" })
ccai.auth.update_auth_token(nil)
ccai.company.get()
local switched = ccai.end_user.get_end_user()
assert(switched.identifier == "vu-scenario-2" and switched.name == "Zoe" and switched.id ~= me.id, "a new identity")

local options = ccai.options.get()
-- The embedded sandbox through its router, or over loopback HTTP (--loopback, or a served one with --host).
local embedded = options.base_url == "https://embedded-sandbox.invalid" and options.url_host == "embedded-sandbox.invalid"
assert((embedded or options.base_url:find("^http://127%.0%.0%.1:")) and options.cache_auth_token == false, "ccai.options")

ccai.language.set_language_code("es")
assert(ccai.language.get_language_code() == "es")
ccai.log.info("company scenario passed")
