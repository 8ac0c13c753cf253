-- Claim the due-index entries that are due: each gets a lease so no other replica takes it
-- meanwhile; a claimer that dies lets it fall due again when the lease ends.
--
-- KEYS: 1 the due-index sorted set (members "<table id>|<version>", scores epoch seconds)
-- ARGV: 1 now, 2 now + lease, 3 at most this many
-- Returns the claimed members, soonest due first.

local due = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], member)
end
return due
