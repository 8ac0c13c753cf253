-- One commit of one table, atomically and in one round trip (also creates a table).
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- KEYS: 1 snapshot hash (v, snap, game, status, created; e once the stream exists),
--       2 the game's event stream, 3 idempotency hash (field "<seat>:<key>"), 4 move log list, 5 the table's shard
--       channel, 6 idempotency fields oldest first (list), 7 and 8 the appended events'
--       streams (only their expiry is set here)
-- ARGV: 1 "1" to create (the table must not exist) or "0" to commit (it must),
--       2 expected version, 3 ttl in milliseconds, 4 snapshot, 5 game id, 6 status,
--       7 created_at, 8 "" or "+" followed by the log entry, 9 "" or the idempotency field,
--       10 the idempotency record, 11 events kept per table ("0": all),
--       12 idempotency records kept per table, 13 "1" to announce the last cursor here
--       ("0": the caller announces it once a replica acknowledged the commit),
--       14.. pairs of (stream id "<version>-<n>", event JSON)
-- Returns {1, new version, previous status, the newest cursor appended (chat, presence)
-- at the version it followed or ""} when applied, {0, current version} on a conflict,
-- {2, current version, record} when the idempotency key is already recorded.
--
-- The first write is the HSET below: a Redis at its maxmemory (noeviction) refuses it
-- with an OOM error before anything is written, and lets a script that has begun writing
-- finish, so a commit lands whole or not at all even when Redis is full.

local head = redis.call('HMGET', KEYS[1], 'v', 'status', 'e')
local current = tonumber(head[1] or '0')

if ARGV[9] ~= '' then
  local record = redis.call('HGET', KEYS[3], ARGV[9])
  if record then
    return {2, current, record}
  end
end

if current ~= tonumber(ARGV[2]) or (ARGV[1] ~= '1' and current == 0) then
  return {0, current}
end

local version = current + 1
local previous = head[2] or ''
-- The table's expiry is put off only once it has come within SLACK of the TTL (or is past
-- it: a finished table's shorter TTL). A table still expires no sooner than the TTL after
-- its last commit, at most SLACK later, and a busy table pays its seven PEXPIREs once a
-- minute rather than at every move.
local TTL = tonumber(ARGV[3])
local SLACK = math.min(60000, math.floor(TTL / 100))
local left = redis.call('PTTL', KEYS[1])
-- What was appended at the version this follows (a subscriber fed this commit by the
-- replica that made it must have read those first): the newest in cursor order, where a
-- spectators' event numbered 2^52 + s * 2^26 + m comes after the event s - 1 every viewer
-- sees (service/store/base.py, cursor_key).
local BASE, STEP = 4503599627370496, 67108864
local appended, newest_a, newest_b = '', nil, nil
for i = 7, 8 do
  local newest = redis.call('XREVRANGE', KEYS[i], '+', '-', 'COUNT', 1)
  if #newest > 0 then
    local v, seq = string.match(newest[1][1], '^(%d+)-(%d+)$')
    local a, b = tonumber(seq), 0
    if a >= BASE then
      a, b = math.floor((a - BASE) / STEP) - 1, 1 + (a - BASE) % STEP
    end
    if tonumber(v) == current and (
      newest_a == nil or a > newest_a or (a == newest_a and b > newest_b)
    ) then
      newest_a, newest_b = a, b
      appended = newest[1][1]
    end
  end
end
redis.call('HSET', KEYS[1], 'v', version, 'snap', ARGV[4], 'game', ARGV[5],
  'status', ARGV[6], 'created', ARGV[7])

local last = ''
for i = 14, #ARGV, 2 do
  redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1])
  last = ARGV[i]
end
if ARGV[11] ~= '0' and last ~= '' then
  redis.call('XTRIM', KEYS[2], 'MAXLEN', ARGV[11])
end

local made = {}  -- keys this commit made, when it does not put off every expiry
if last ~= '' and not head[3] then
  -- the stream, made now unless an earlier commit had events: 'e' says one did
  made[#made + 1] = 2
  redis.call('HSET', KEYS[1], 'e', '1')
end
if ARGV[8] ~= '' then
  if redis.call('RPUSH', KEYS[4], string.sub(ARGV[8], 2)) == 1 then
    made[#made + 1] = 4
  end
end
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[9], ARGV[10])
  -- Keep the newest records only: a key recorded is never recorded again while kept,
  -- so each field is in the list once.
  local length = redis.call('RPUSH', KEYS[6], ARGV[9])
  if length == 1 then
    made[#made + 1] = 3
    made[#made + 1] = 6
  end
  local excess = length - tonumber(ARGV[12])
  if excess > 0 then
    for _, old in ipairs(redis.call('LPOP', KEYS[6], excess)) do
      redis.call('HDEL', KEYS[3], old)
    end
  end
end

if left < TTL or left > TTL + SLACK then
  for _, i in ipairs({1, 2, 3, 4, 6, 7, 8}) do
    redis.call('PEXPIRE', KEYS[i], TTL + SLACK)
  end
else
  for _, i in ipairs(made) do
    redis.call('PEXPIRE', KEYS[i], TTL + SLACK, 'NX')
  end
end

if last ~= '' and ARGV[13] == '1' then
  redis.call('SPUBLISH', KEYS[5], last)
end
return {1, version, previous, appended}
