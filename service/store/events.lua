-- Reads of a table's events, from its three streams, in one round trip.
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- Cursor order (service/store/base.py, cursor_key): "<v>-<n>" with n < 2^52 is the n-th
-- event of version v that every viewer sees; n = 2^52 + s * 2^26 + m (spectators' chat, in
-- the third stream only) is the m-th event with an audience after the first s of them, so
-- it comes after "<v>-<s - 1>" and before "<v>-<s>". Each stream is in that order, so a
-- read after a cursor starts each stream where that cursor's place falls in it.
--
-- KEYS: 1 the game's event stream, 2 appended events for every viewer, 3 appended events
--       with an audience (never read for a reader with a seat, but its ids are cursors)
-- ARGV: 1 "after" or "last", 2 the cursor ("": from the first), 3 how many,
--       4 "1" for a reader with a seat
-- Returns {known, rows of each stream read}: for "after", the first rows of each stream
-- after the cursor, oldest first; for "last", the newest, newest first. known is 0 when
-- the cursor is neither one of the kept events nor older than the oldest kept event of an
-- appended stream that has dropped some (it may name a dropped one).

local BASE, STEP = 4503599627370496, 67108864 -- 2^52, 2^26: exact in Lua's numbers
local mode, cursor, count = ARGV[1], ARGV[2], tonumber(ARGV[3])
local streams = ARGV[4] == '1' and 2 or 3
local out = {1}

if mode == 'last' then
  for i = 1, streams do
    out[i + 1] = redis.call('XREVRANGE', KEYS[i], '+', '-', 'COUNT', count)
  end
  return out
end
if cursor == '' then
  for i = 1, streams do
    out[i + 1] = redis.call('XRANGE', KEYS[i], '-', '+', 'COUNT', count)
  end
  return out
end

-- A stream id; v as written (a string) or a number below 2^53.
local function id(v, n)
  if type(v) == 'number' then
    v = string.format('%.0f', v)
  end
  return v .. '-' .. string.format('%.0f', n)
end
-- A cursor's place: {version, a, b}, compared in that order.
local function place(text)
  local v, n = string.match(text, '^(%d+)-(%d+)$')
  v, n = tonumber(v), tonumber(n)
  if n < BASE then
    return {v, n, 0}
  end
  return {v, math.floor((n - BASE) / STEP) - 1, 1 + (n - BASE) % STEP}
end
local function before(x, y)
  for i = 1, 3 do
    if x[i] ~= y[i] then
      return x[i] < y[i]
    end
  end
  return false
end

local known = false
-- Rows of stream i from the cursor on (inclusive), less the cursor itself when it is there.
local function from_cursor(i, last, limit)
  local rows = redis.call('XRANGE', KEYS[i], cursor, last, 'COUNT', limit)
  if #rows > 0 and rows[1][1] == cursor then
    known = true
    table.remove(rows, 1)
  end
  return rows
end

local cv, cn = string.match(cursor, '^(%d+)-(%d+)$')
local n = tonumber(cn)
if n < BASE then
  -- An event every viewer sees (in the game's stream or everyone's chat; in the
  -- spectators' stream only if numbered before spectators were numbered apart).
  for i = 1, 2 do
    out[i + 1] = from_cursor(i, '+', count + 1)
  end
  if streams == 3 then
    local rows = from_cursor(3, id(cv, BASE - 1), count + 1)
    -- then the spectators' events after it: from "<v>-<2^52 + (n + 1) * 2^26>" on
    local start = nil
    if n + 1 < STEP then
      start = id(cv, BASE + (n + 1) * STEP)
    elseif tonumber(cv) + 1 < 2 * BASE then
      start = id(tonumber(cv) + 1, 0)
    end
    if start ~= nil and #rows < count then
      for _, row in ipairs(redis.call('XRANGE', KEYS[3], start, '+', 'COUNT', count - #rows)) do
        rows[#rows + 1] = row
      end
    end
    out[4] = rows
  elseif not known then
    local rows = redis.call('XRANGE', KEYS[3], cursor, cursor)
    known = #rows > 0 and rows[1][1] == cursor
  end
else
  -- A spectators' event: the others from "<v>-<s>" on, its own stream after it.
  local s = math.floor((n - BASE) / STEP)
  for i = 1, 2 do
    out[i + 1] = redis.call('XRANGE', KEYS[i], id(cv, s), '+', 'COUNT', count)
  end
  if streams == 3 then
    out[4] = from_cursor(3, '+', count + 1)
  else
    local rows = redis.call('XRANGE', KEYS[3], cursor, cursor)
    known = #rows > 0 and rows[1][1] == cursor
  end
end

local at = place(cursor)
for i = 2, 3 do
  if known then
    break
  end
  if redis.call('EXISTS', KEYS[i]) == 1 then
    local info = redis.call('XINFO', 'STREAM', KEYS[i])
    local f = {}
    for j = 1, #info, 2 do
      f[info[j]] = info[j + 1]
    end
    if f['entries-added'] > f['length'] and f['first-entry'] then
      known = before(at, place(f['first-entry'][1]))
    end
  end
end
if not known then
  return {0}
end
return out
