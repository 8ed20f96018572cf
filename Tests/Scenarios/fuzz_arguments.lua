-- Every binding, called with arguments of every type: each call returns or raises a
-- ccai.Error (or a Lua error), and the host keeps running.
local samples = { {}, { nil }, { 1 }, { -1.5 }, { "x" }, { "" }, { true }, { {} }, { { menu_id = "x" } },
                  { function() end }, { 1, 2, 3 }, { {}, {} }, { "x", { timeout = -1 } } }
local skip = { ["ccai.sleep"] = true, ["ccai.spawn"] = true }
local calls, errors = 0, 0

local function visit(module, path, seen)
  if seen[module] then return end
  seen[module] = true
  local keys = {}
  for key in pairs(module) do keys[#keys + 1] = key end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local value, name = module[key], path .. "." .. key
    if type(value) == "function" and not skip[name] then
      for _, arguments in ipairs(samples) do
        calls = calls + 1
        local ok, err = pcall(value, table.unpack(arguments, 1, 3))
        if not ok then
          errors = errors + 1
          assert(type(err) == "string" or (type(err) == "table" and type(err.code) == "string"),
                 name .. " raised an unexpected error value: " .. tostring(err))
        end
      end
    elseif type(value) == "table" then
      visit(value, name, seen)
    end
  end
end

visit(ccai, "ccai", {})
assert(calls > 200, "every binding was called")
-- The SDK still works afterwards.
ccai.end_user.update_end_user({ identifier = "after-fuzz" })
ccai.auth.update_auth_token(nil)
assert(ccai.company.get().display_name == "Acme")
ccai.log.info("fuzz scenario passed", { calls = calls, errors = errors })
