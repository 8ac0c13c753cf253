-- A seat's presence: one sorted-set entry "<seat>|<member>" per connection holder (a
-- replica), scored with the epoch millisecond it lapses at (Redis' own clock, so replicas'
-- clocks do not matter). Lapsed entries are dropped first.
--
-- KEYS: 1 the table's presence set
-- ARGV: 1 "1" to mark, "0" to drop, "r" to read; 2 seat; 3 member; 4 ttl in milliseconds
-- Returns, to mark or drop: 1 when the seat changed between connected and away, else 0;
-- to read: the live entries.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] == 'r' then
  return redis.call('ZRANGE', KEYS[1], 0, -1)
end

local prefix = ARGV[2] .. '|'
local function holders()
  local n = 0
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(m, 1, #prefix) == prefix then
      n = n + 1
    end
  end
  return n
end

local before = holders()
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
local after = holders()
if (before == 0) ~= (after == 0) then
  return 1
end
return 0
