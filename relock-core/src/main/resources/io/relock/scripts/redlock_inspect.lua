-- redlock_inspect.lua: one Redlock node's view of a lock, changing nothing (see RedlockDriver).
--
-- KEYS[1] lock hash {o = owner id, c = hold count, t = fencing token} (see redlock_acquire.lua)
-- No ARGV.
--
-- Returns {owner, hold count, fencing token, pttl ms}: owner '' and pttl -2 when free here.

local owner = redis.call('HGET', KEYS[1], 'o')
if not owner then
  return {'', 0, 0, -2}
end
return {owner, tonumber(redis.call('HGET', KEYS[1], 'c')), tonumber(redis.call('HGET', KEYS[1], 't')),
        redis.call('PTTL', KEYS[1])}
