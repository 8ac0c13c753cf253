-- One commit of one table, atomically and in one round trip (also creates a table).
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- KEYS: 1 snapshot hash (v; snap, the snapshot whole, or base, a snapshot of version b,
--       with d, the difference of the snapshot from it (store/_deltas.py); game, status,
--       created; e once the stream exists; a the newest cursor appended, from append.lua,
--       and the idempotency records i:<seat>:<key>, in a table made since they live here),
--       2 the game's event stream,
--       3 idempotency hash of a table made before (field "<seat>:<key>"), 4 move log list,
--       5 the table's shard channel, 6 idempotency fields oldest first (list), 7 and 8 the
--       appended events' streams (only their expiry is set here)
-- ARGV: 1 "1" to create (the table must not exist) or "0" to commit (it must),
--       2 expected version, 3 ttl in milliseconds, 4 the snapshot (its difference from
--       the base of version ARGV[14], if that is a number), 5 game id, 6 status,
--       7 created_at, 8 "" or "+" followed by the log entry, 9 "" or the idempotency field,
--       10 the idempotency record, 11 events kept per table ("0": all),
--       12 idempotency records kept per table, 13 "1" to announce the last cursor here
--       ("0": the caller announces it once a replica acknowledged the commit),
--       14 "" to write the snapshot whole, "r" to write it whole as the base of the
--       differences to come, or the version of the base ARGV[4] is a difference from,
--       15.. pairs of (stream id "<version>-<n>", event JSON)
-- Returns {1, new version, previous status, the newest cursor appended (chat, presence)
-- at the version it followed or ""} when applied, {0, current version} on a conflict,
-- {2, current version, record} when the idempotency key is already recorded, {3, current
-- version} when ARGV[4] is a difference from a base the table no longer has.
--
-- The first write is the HSET below: a Redis at its maxmemory (noeviction) refuses it
-- with an OOM error before anything is written, and lets a script that has begun writing
-- finish, so a commit lands whole or not at all even when Redis is full.

-- The newest cursor appended (chat, presence) at the version ``current``, in cursor order,
-- where a spectators' event numbered 2^52 + s * 2^26 + m comes after the event s - 1 every
-- viewer sees (service/store/base.py, cursor_key): read from the appended streams, for a
-- table made before append.lua kept it in the field 'a'.
local function newest_appended(current)
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
  return appended
end

-- A table made since the hash keeps 'a' (always there, "" at first) also keeps its
-- idempotency records here (fields 'i:<seat>:<key>'), read and written by the calls that
-- read and write the snapshot; a table made before keeps them in KEYS[3] to its end.
local mine = ARGV[9] ~= '' and 'i:' .. ARGV[9] or 'v'
local head = redis.call('HMGET', KEYS[1], 'v', 'status', 'e', 'a', mine, 'b')
local current = tonumber(head[1] or '0')
local here = ARGV[1] == '1' or head[4] ~= false

if ARGV[9] ~= '' then
  local record = head[5]
  if not here then
    record = redis.call('HGET', KEYS[3], ARGV[9])
  end
  if record then
    return {2, current, record}
  end
end

if current ~= tonumber(ARGV[2]) or (ARGV[1] ~= '1' and current == 0) then
  return {0, current}
end
local form = ARGV[14]
if form ~= '' and form ~= 'r' and head[6] ~= form then
  return {3, current}
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
-- replica that made it must have read those first): append.lua keeps the newest cursor it
-- appended, in cursor order, in the field 'a' ("" at creation: nothing yet).
local appended = ''
if head[4] then
  if head[4] ~= '' and string.match(head[4], '^(%d+)-') == head[1] then
    appended = head[4]
  end
elseif current > 0 then
  appended = newest_appended(current)  -- a table made before the field was kept
end

local fields = {'v', string.format('%d', version)}
local function set(field, value)
  fields[#fields + 1] = field
  fields[#fields + 1] = value
end
-- A reader that knows only 'snap' finds no table rather than an old snapshot.
local gone = nil
if form == '' then
  set('snap', ARGV[4])
  if head[6] then
    gone = {'base', 'b', 'd'}
  end
elseif form == 'r' then
  set('base', ARGV[4])
  set('b', fields[2])
  set('d', '')
  if not head[6] and ARGV[1] ~= '1' then
    gone = {'snap'}
  end
else
  set('d', ARGV[4])
end
if ARGV[1] == '1' then
  set('game', ARGV[5])
  set('created', ARGV[7])
  set('a', '')
end
if previous ~= ARGV[6] then
  set('status', ARGV[6])
end
local made = {}  -- keys this commit made, when it does not put off every expiry
if #ARGV >= 15 and not head[3] then
  -- the stream, made now unless an earlier commit had events: 'e' says one did
  set('e', '1')
  made[#made + 1] = 2
end
if ARGV[9] ~= '' and here then
  set(mine, ARGV[10])
end
redis.call('HSET', KEYS[1], unpack(fields))
if gone then
  redis.call('HDEL', KEYS[1], unpack(gone))
end

local last = ''
for i = 15, #ARGV, 2 do
  redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1])
  last = ARGV[i]
end
if ARGV[11] ~= '0' and last ~= '' then
  redis.call('XTRIM', KEYS[2], 'MAXLEN', ARGV[11])
end

if ARGV[8] ~= '' then
  if redis.call('RPUSH', KEYS[4], string.sub(ARGV[8], 2)) == 1 then
    made[#made + 1] = 4
  end
end
if ARGV[9] ~= '' then
  if not here then
    redis.call('HSET', KEYS[3], ARGV[9], ARGV[10])
  end
  -- Keep the newest records: a key recorded is never recorded again while kept, so each
  -- field is in the list once. The oldest go a tenth of the number kept at a time, so
  -- that a table holds from ARGV[12] to ARGV[12] * 1.1 records.
  local length = redis.call('RPUSH', KEYS[6], ARGV[9])
  if length == 1 then
    made[#made + 1] = 6
    if not here then
      made[#made + 1] = 3
    end
  end
  local kept = tonumber(ARGV[12])
  local excess = length - kept
  if excess > math.floor(kept / 10) then
    local old = redis.call('LPOP', KEYS[6], excess)
    if here then
      for j = 1, #old do
        old[j] = 'i:' .. old[j]
      end
      redis.call('HDEL', KEYS[1], unpack(old))
    else
      redis.call('HDEL', KEYS[3], unpack(old))
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
