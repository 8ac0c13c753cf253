-- Events that change no state (chat, presence), appended at the table's current version
-- with the next free sequence numbers, atomically with respect to commits. They go to
-- streams of their own, apart from the game's, each trimmed to its newest events.
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- KEYS: 1 snapshot hash, 2 the game's event stream, 3 appended events for every viewer,
--       4 appended events with an audience, 5 the table's shard channel
-- ARGV: 1 events kept per appended stream,
--       2.. pairs of (3 or 4: the stream, the event's JSON without its opening '{' and
--       its cursor and version: the script puts them in front)
-- Returns {} when there is no such table, else {version, first sequence number}.

local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return {}
end
-- The next free sequence number at this version, whichever stream holds the newest.
local n = 0
for i = 2, 4 do
  local newest = redis.call('XREVRANGE', KEYS[i], '+', '-', 'COUNT', 1)
  if #newest > 0 then
    local v, seq = string.match(newest[1][1], '^(%d+)-(%d+)$')
    if v == version and tonumber(seq) >= n then
      n = tonumber(seq) + 1
    end
  end
end
local first = n
local last = ''
local touched = {}
for i = 2, #ARGV, 2 do
  local key = KEYS[tonumber(ARGV[i])]
  last = version .. '-' .. n
  redis.call('XADD', key, last, 'e',
    '{"cursor":"' .. last .. '","version":' .. version .. ',' .. ARGV[i + 1])
  touched[key] = true
  n = n + 1
end
-- Each stream lives as long as the table (a new stream key would otherwise never expire).
local ttl = redis.call('PTTL', KEYS[1])
for key in pairs(touched) do
  redis.call('XTRIM', key, 'MAXLEN', ARGV[1])
  if ttl > 0 then
    redis.call('PEXPIRE', key, ttl)
  end
end
redis.call('SPUBLISH', KEYS[5], last)
return {tonumber(version), first}
