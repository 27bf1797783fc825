-- redlock_inspect.lua: one Redlock node's view of a lock, changing nothing (see RedlockDriver).
--
-- KEYS[1] the lock (see lockvalue.lua)
-- No ARGV.
--
-- Returns {owner, hold count, fencing token, pttl ms}: owner '' and pttl -2 when free here.

-- @include lockvalue.lua

local owner, token, count = parse_lock(redis.call('GET', KEYS[1]))
if not owner then
  return {'', 0, 0, -2}
end
return {owner, tonumber(count), tonumber(token), redis.call('PTTL', KEYS[1])}
