-- require finds pure-Lua modules next to the script; json and env work together.
local helper = require("lib.helper")
assert(helper.greeting(ccai.env.NAME or "nobody") == "Hello, Ana!", "module from the script's folder")
assert(require("lib.helper") == helper, "modules are loaded once")
local decoded = ccai.json.decode(ccai.json.encode({ name = ccai.env.NAME, tags = { "a", "b" } }))
assert(decoded.name == "Ana" and decoded.tags[2] == "b", "json round trip")
assert(not pcall(function() ccai.env.NAME = "Bob" end), "ccai.env is read-only")
print("modules scenario passed")
