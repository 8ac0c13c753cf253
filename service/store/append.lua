-- Events that change no state (chat, presence), appended at the table's current version
-- with the next free sequence numbers, atomically with respect to commits.
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- KEYS: 1 snapshot hash, 2 event stream, 3 the table's shard channel
-- ARGV: 1 events kept per table ("0": all),
--       2.. each event's JSON without its opening '{' and its cursor and version
--       (the script puts them in front)
-- Returns {} when there is no such table, else {version, first sequence number}.

local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return {}
end
local n = 0
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #newest > 0 then
  local v, seq = string.match(newest[1][1], '^(%d+)-(%d+)$')
  if v == version then
    n = tonumber(seq) + 1
  end
end
local first = n
local last = ''
for i = 2, #ARGV do
  last = version .. '-' .. n
  redis.call('XADD', KEYS[2], last, 'e',
    '{"cursor":"' .. last .. '","version":' .. version .. ',' .. ARGV[i])
  n = n + 1
end
if ARGV[1] ~= '0' then
  redis.call('XTRIM', KEYS[2], 'MAXLEN', ARGV[1])
end
-- The stream lives as long as the table (a new stream key would otherwise never expire).
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
end
redis.call('SPUBLISH', KEYS[3], last)
return {tonumber(version), first}
