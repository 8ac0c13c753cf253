-- Reads of a table's events, from its three streams, in one round trip.
-- Every key is the table's own and shares its hash tag, so this runs on Redis Cluster.
--
-- KEYS: 1 the game's event stream, 2 appended events for every viewer, 3 appended events
--       with an audience (never read for a reader with a seat, but its ids are cursors)
-- ARGV: 1 "after" or "last", 2 the cursor ("": from the first), 3 how many,
--       4 "1" for a reader with a seat
-- Returns {known, rows of each stream read}: for "after", the first rows of each stream
-- after the cursor, oldest first; for "last", the newest, newest first. known is 0 when
-- the cursor is neither one of the kept events nor older than the oldest kept event of an
-- appended stream that has dropped some (it may name a dropped one).

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

local known = false
for i = 1, streams do
  -- Inclusive of the cursor, which comes back first from the stream that holds it.
  local rows = redis.call('XRANGE', KEYS[i], cursor, '+', 'COUNT', count + 1)
  if #rows > 0 and rows[1][1] == cursor then
    known = true
    table.remove(rows, 1)
  end
  out[i + 1] = rows
end
if not known and streams == 2 then
  local rows = redis.call('XRANGE', KEYS[3], cursor, cursor)
  known = #rows > 0 and rows[1][1] == cursor
end

local function parts(id)
  local v, n = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(v), tonumber(n)
end
local cv, cn = parts(cursor)
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
      local fv, fn = parts(f['first-entry'][1])
      known = cv < fv or (cv == fv and cn < fn)
    end
  end
end
if not known then
  return {0}
end
return out
