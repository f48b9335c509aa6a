-- calls.lua - a small Lua workload for tests/lit/entry-lua.test: tree
-- building and walking (recursion), string formatting, gmatch, sort with
-- a Lua comparator; a few milliseconds, so that it runs under callgrind.
local function bottomup(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottomup(d), bottomup(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local n = check(bottomup(6))
local parts = {}
for i = 1, 50 do parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7)) end
local s = table.concat(parts, ",")
local words = {}
for w in s:gmatch("[^,]+") do words[#words + 1] = w:upper() end
table.sort(words, function(a, b) return a > b end)
print(n, #s, words[1])
