-- bench.lua - a small Lua workload for the stack unfolding test
-- (tests/lit/run/lua.test): binary trees, fannkuch, strings and sort,
-- each a few milliseconds, deterministic.  An argument N runs it all N
-- times (for a run long enough to sample), with the same output.
local function bottomup(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottomup(d), bottomup(d) }
end

local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end

local function fannkuch(n)
  local p, q, s, sign, maxflips, sum = {}, {}, {}, 1, 0, 0
  for i = 1, n do p[i] = i; q[i] = i; s[i] = i end
  repeat
    local q1 = p[1]
    if q1 ~= 1 then
      for i = 2, n do q[i] = p[i] end
      local flips = 1
      repeat
        local qq = q[q1]
        if qq == 1 then
          sum = sum + sign * flips
          if flips > maxflips then maxflips = flips end
          break
        end
        q[q1] = q1
        if q1 >= 4 then
          local i, j = 2, q1 - 1
          repeat q[i], q[j] = q[j], q[i]; i = i + 1; j = j - 1; until i >= j
        end
        q1 = qq; flips = flips + 1
      until false
    end
    if sign == 1 then
      p[2], p[1] = p[1], p[2]; sign = -1
    else
      p[2], p[3] = p[3], p[2]; sign = 1
      for i = 3, n do
        local sx = s[i]
        if sx ~= 1 then s[i] = sx - 1; break end
        if i == n then return sum, maxflips end
        s[i] = i
        local t = p[1]; for j = 1, i do p[j] = p[j + 1] end; p[i + 1] = t
      end
    end
  until false
end

local rounds = tonumber(arg and arg[1]) or 1
local n, sum, flips, s, words
for _ = 1, rounds do
  n = 0
  for _ = 1, 4 do n = n + check(bottomup(8)) end
  sum, flips = fannkuch(6)
  local parts = {}
  for i = 1, 300 do parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7)) end
  s = table.concat(parts, ",")
  words = {}
  for w in s:gmatch("[^,]+") do words[#words + 1] = w:upper() end
  table.sort(words, function(a, b) return a > b end)
end
print(n, sum, flips, #s, words[1])
