-- Quick play's tickets of one pool, all keys in the pool's hash slot:
--   KEYS[1] :w  sorted set of waiting ticket ids, by when each was made
--   KEYS[2] :s  hash of waiting ticket id -> when its holder was last seen (epoch seconds)
--   KEYS[3..]   :t:<id>  each ticket's JSON, as last written
--
-- ARGV[1] "e" enqueue: 2 ticket id, 3 JSON, 4 made at, 5 limit, 6 ttl ms (KEYS[3] its key)
--         returns 1, or 0 when the pool is full
-- ARGV[1] "s" settle: 2 ttl ms, then (id, JSON) pairs (KEYS[3..] their keys, in order)
--         returns 1 when every ticket still waited (then written), else 0 (nothing written)
-- ARGV[1] "n" seen: 2 ticket id, 3 at; returns the number waiting ahead of it, or -1 when
--         it no longer waits

local op = ARGV[1]
if op == 'e' then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then
    return 0
  end
  redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[6])
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
  return 1
end
if op == 's' then
  for i = 3, #ARGV, 2 do
    if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
      return 0
    end
  end
  for i = 3, #ARGV, 2 do
    local k = (i - 3) / 2 + 3
    redis.call('SET', KEYS[k], ARGV[i + 1], 'PX', ARGV[2])
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
  return 1
end
if op == 'n' then
  local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
  if not rank then
    return -1
  end
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  return rank
end
return redis.error_reply('unknown op')
