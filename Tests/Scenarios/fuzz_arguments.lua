-- Every binding, called with arguments of every type, hostile paths and names, and
-- numbers at the edges: each call returns or raises a ccai.Error (or a Lua error), and the
-- host keeps running. fixtures/passwd.png is a symlink to /etc/passwd.
local samples = { {}, { nil }, { 1 }, { -1.5 }, { "x" }, { "" }, { true }, { {} }, { { menu_id = "x" } },
                  { function() end }, { 1, 2, 3 }, { {}, {} }, { "x", { timeout = -1 } } }
local paths = { "/etc/passwd", "../../../../etc/passwd", "../", "fixtures/passwd.png", "/proc/self/environ",
                "fixtures/../../../etc/passwd", "/dev/zero" }
for _, path in ipairs(paths) do
  samples[#samples + 1] = { path }
  samples[#samples + 1] = { { path = path, to = path, name = path, file = path } }
  samples[#samples + 1] = { { images = { { path = path, mime_type = "image/png" } } } }
  samples[#samples + 1] = { { videos = { { path = path, mime_type = "video/mp4" } } } }
  samples[#samples + 1] = { { videos = { { data = "x", mime_type = "video/mp4", name = path } } } }
end
local numbers = { 1e300, -1e300, math.huge, -math.huge, 0 / 0, 2 ^ 63, -2 ^ 63, -0.0, math.maxinteger, math.mininteger }
for _, number in ipairs(numbers) do
  samples[#samples + 1] = { number }
  samples[#samples + 1] = { number, number }
  samples[#samples + 1] = { { menu_id = number, id = number, timeout = number, page = number, rating = number,
                              communication_id = number, seconds = number, smart_action_id = number } }
  samples[#samples + 1] = { "x", { timeout = number } }
end
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
        local results = table.pack(pcall(value, table.unpack(arguments, 1, 3)))
        local ok, err = results[1], results[2]
        for index = 2, results.n do
          local text = type(results[index]) == "table" and (results[index].message or "") or tostring(results[index])
          assert(not text:find("root:x:0:0", 1, true), name .. " gave back the bytes of /etc/passwd")
        end
        if not ok then
          errors = errors + 1
          assert(type(err) == "string" or (type(err) == "table" and type(err.code) == "string"),
                 name .. " raised an unexpected error value: " .. tostring(err))
        end
      end
      -- Between bindings the chunk yields: the 10 s budget without yielding is for one
      -- binding's calls (a sanitized build runs them several times slower), not for all.
      ccai.sleep(0)
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
