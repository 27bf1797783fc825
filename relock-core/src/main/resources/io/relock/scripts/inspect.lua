-- inspect.lua: read a lock's state without changing it.
--
-- KEYS[1] lock hash, KEYS[2] fence, KEYS[3] wait queue (see handoff.lua)
-- No ARGV.
--
-- Returns {owner, hold count, fencing token, pttl ms, waiters, last token issued}:
-- owner is '' and count, token 0 and pttl -2 when the lock is free.

local owner = redis.call('HGET', KEYS[1], 'o')
if not owner then
  return {'', 0, 0, -2, redis.call('ZCARD', KEYS[3]), tonumber(redis.call('GET', KEYS[2]) or '0')}
end
return {owner,
        tonumber(redis.call('HGET', KEYS[1], 'c')),
        tonumber(redis.call('HGET', KEYS[1], 't')),
        redis.call('PTTL', KEYS[1]),
        redis.call('ZCARD', KEYS[3]),
        tonumber(redis.call('GET', KEYS[2]) or '0')}
