-- force_unlock.lua: free the lock whoever holds it, and hand it to the next waiter.
--
-- KEYS[1] lock hash, KEYS[2] fence, KEYS[3] wait queue, KEYS[4] waiter table (see handoff.lua)
-- ARGV[1] how long the fence key is kept after its last use, in milliseconds
--
-- Returns {held, handed}: held is 1 if an owner held the lock; handed is 1 if a waiter got it.

-- @include handoff.lua

local held = redis.call('DEL', KEYS[1])
local now_ms, now_us = server_time()
if grant_next(now_ms, now_us, ARGV[1]) then
  return {held, 1}
end
return {held, 0}
