-- One rate limit check (GCRA, a token bucket kept as one timestamp), on a key of its own,
-- apart from any table's keys. The time is Redis's own, so every replica agrees on it.
--
-- KEYS: 1 the limit's key (its value: the theoretical arrival time, in microseconds)
-- ARGV: 1 microseconds per request (1e6 / rate), 2 burst (requests), 3 cost (requests)
-- Returns 0 when allowed (and counted), else the microseconds to wait (nothing counted).

local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2]) * interval
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then
  tat = now
end
local next_tat = tat + tonumber(ARGV[3]) * interval
local allowed_at = next_tat - tolerance
if allowed_at > now then
  return math.ceil(allowed_at - now)
end
redis.call('SET', KEYS[1], string.format('%.0f', next_tat),
  'PX', math.ceil((next_tat - now) / 1000) + 1)
return 0
