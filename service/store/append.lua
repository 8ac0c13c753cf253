-- Events that change no state (chat, presence), appended at the table's current version,
-- atomically with respect to commits. They go to streams of their own, apart from the
-- game's, each trimmed to its newest events.
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- Numbers, as service/store/base.py's appended_cursors gives them: an event every viewer
-- sees takes the next free n of the version ("<version>-<n>", no gap for a seat); an event
-- with an audience (spectators' chat) takes 2^52 + s * 2^26 + m, the m-th after the first s
-- events every viewer sees at the version. A version whose spectators' stream already holds
-- an event numbered the old way (written before this numbering) goes on numbering the old
-- way, so that one stream never mixes the two at one version.
--
-- KEYS: 1 snapshot hash, 2 the game's event stream, 3 appended events for every viewer,
--       4 appended events with an audience, 5 the table's shard channel
-- ARGV: 1 events kept per appended stream,
--       2.. pairs of (3 or 4: the stream, the event's JSON without its opening '{' and
--       its cursor and version: the script puts them in front)
-- Returns {} when there is no such table, {-1} when no number is left at this version for
-- an event with an audience (nothing is written), else {version, cursor of each event}.

local BASE, STEP = 4503599627370496, 67108864 -- 2^52, 2^26: exact in Lua's numbers

local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return {}
end
-- The next free n at this version, and the newest spectators' (s, m) there.
local seats, heard_s, heard_m, old_way = 0, -1, -1, false
for i = 2, 4 do
  local newest = redis.call('XREVRANGE', KEYS[i], '+', '-', 'COUNT', 1)
  if #newest > 0 then
    local v, n = string.match(newest[1][1], '^(%d+)-(%d+)$')
    n = tonumber(n)
    if v == version and n < BASE then
      if n >= seats then
        seats = n + 1
      end
      old_way = old_way or i == 4
    elseif v == version then
      heard_s = math.floor((n - BASE) / STEP)
      heard_m = (n - BASE) % STEP
    end
  end
end
local ids = {}
for i = 2, #ARGV, 2 do
  if ARGV[i] == '3' or old_way then
    ids[#ids + 1] = version .. '-' .. string.format('%.0f', seats)
    seats = seats + 1
  else
    if heard_s == seats then
      heard_m = heard_m + 1
    else
      heard_s, heard_m = seats, 0
    end
    if seats >= STEP or heard_m >= STEP then
      return {-1}
    end
    ids[#ids + 1] = version .. '-' .. string.format('%.0f', BASE + seats * STEP + heard_m)
  end
end
local touched = {}
for j, id in ipairs(ids) do
  local key = KEYS[tonumber(ARGV[2 * j])]
  redis.call('XADD', key, id, 'e',
    '{"cursor":"' .. id .. '","version":' .. version .. ',' .. ARGV[2 * j + 1])
  touched[key] = true
end
-- Each stream lives as long as the table (a new stream key would otherwise never expire).
local ttl = redis.call('PTTL', KEYS[1])
for key in pairs(touched) do
  redis.call('XTRIM', key, 'MAXLEN', ARGV[1])
  if ttl > 0 then
    redis.call('PEXPIRE', key, ttl)
  end
end
-- The newest cursor appended at this version, for the next commit (commit.lua): the last
-- of this call's, each after the one before it and after every earlier call's. A table
-- made before 'a' was kept has none, and its commits read its streams (commit.lua).
if redis.call('HEXISTS', KEYS[1], 'a') == 1 then
  redis.call('HSET', KEYS[1], 'a', ids[#ids])
end
redis.call('SPUBLISH', KEYS[5], ids[#ids])
local out = {tonumber(version)}
for _, id in ipairs(ids) do
  out[#out + 1] = id
end
return out
