-- A seat's presence: one sorted-set entry "<seat>|<member>" per connection holder (a
-- replica), scored with the epoch millisecond it lapses at (Redis' own clock, so replicas'
-- clocks do not matter). Lapsed entries count as gone; only "l" drops them, so that each
-- lapse is told once, to the one caller that drops it.
--
-- KEYS: 1 the table's presence set
-- ARGV: 1 "1" to mark, "0" to drop, "r" to read, "l" to drop the lapsed entries;
--       2 seat; 3 member; 4 ttl in milliseconds
-- Returns, to mark or drop: 1 when the seat changed between connected and away, else 0;
-- to read: the live entries; "l": the seats whose every entry lapsed just now.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function live()
  return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
end
local function holders(prefix)
  local n = 0
  for _, m in ipairs(live()) do
    if string.sub(m, 1, #prefix) == prefix then
      n = n + 1
    end
  end
  return n
end

if ARGV[1] == 'r' then
  return live()
end
if ARGV[1] == 'l' then
  local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
  if #gone == 0 then
    return {}
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local told, away = {}, {}
  for _, m in ipairs(gone) do
    local seat = string.match(m, '^([^|]*)|')
    if seat and not told[seat] then
      told[seat] = true
      if holders(seat .. '|') == 0 then
        away[#away + 1] = seat
      end
    end
  end
  return away
end

local prefix = ARGV[2] .. '|'
local before = holders(prefix)
if ARGV[1] == '1' then
  local ttl = tonumber(ARGV[4])
  redis.call('ZADD', KEYS[1], now + ttl, prefix .. ARGV[3])
  local keep = redis.call('PTTL', KEYS[1])
  if keep < ttl then
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
else
  redis.call('ZREM', KEYS[1], prefix .. ARGV[3])
end
local after = holders(prefix)
if (before == 0) ~= (after == 0) then
  return 1
end
return 0
