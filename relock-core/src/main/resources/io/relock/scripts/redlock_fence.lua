-- redlock_fence.lua: the second step of a Redlock acquisition (see RedlockDriver). The caller
-- took the lock on a majority of nodes and read their fences; it now writes the token it chose
-- (above all of them) on each node that granted it, while it still holds the lock there.
--
-- KEYS[1] the lock, KEYS[2] this node's fence (see redlock_acquire.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] the fencing token
--
-- Returns {1} if written, {0} if the caller no longer holds the lock on this node (nothing written).

-- @include lockvalue.lua

local owner, _, count, lease, since, waiters, attempt = parse_lock(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] then
  return {0}
end
if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
keep_lock(owner, ARGV[2], count, lease, since, waiters, attempt)
return {1}
