-- inspect.lua: read a lock's state without changing it.
--
-- KEYS[1] the lock; its fence and queue are named after it (see fence.lua, queue.lua)
-- No ARGV.
--
-- Returns {owner, hold count, fencing token, pttl ms, waiters, last token issued}:
-- owner is '' and count, token 0 and pttl -2 when the lock is free.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua

local owner, token, count = parse_lock(redis.call('GET', KEYS[1]))
local waiters = redis.call('ZCARD', QUEUE)
local last = read_fence()
if not owner then
  return {'', 0, 0, -2, waiters, last}
end
return {owner, tonumber(count), tonumber(token), redis.call('PTTL', KEYS[1]), waiters, last}
