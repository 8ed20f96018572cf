local helper = {}

function helper.greeting(name)
  return "Hello, " .. name .. "!"
end

return helper
