-- redlock_fence.lua: the second step of a Redlock acquisition (see RedlockDriver). The caller
-- took the lock on a majority of nodes and read their fences; it now writes the token it chose
-- (above all of them) on each node that granted it, while it still holds the lock there.
--
-- KEYS[1] lock hash, KEYS[2] this node's fence (see redlock_acquire.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] the fencing token
--
-- Returns {1} if written, {0} if the caller no longer holds the lock on this node (nothing written).

if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return {0}
end
if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
redis.call('HSET', KEYS[1], 't', ARGV[2])
return {1}
