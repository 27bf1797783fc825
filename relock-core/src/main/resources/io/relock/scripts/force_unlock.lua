-- force_unlock.lua: free the lock whoever holds it, and hand it to the next waiter.
--
-- KEYS[1] the lock; its fence, queue and waiter table are named after it (see fence.lua, queue.lua)
-- ARGV[1] how long the fence key is kept after its last use, in milliseconds
-- ARGV[2] the channel prefix of relock's clients ('<key prefix>client:'): the holder's client (the
--         owner id up to its colon) is told "lost <owner> <lock key>" on its channel, so that it
--         checks its hold at once instead of at its next renewal (which remains the fallback when
--         the message is lost)
--
-- Returns {held, handed}: held is 1 if an owner held the lock; handed is 1 if a waiter got it.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include handoff.lua

-- A semaphore's or read-write lock's marker fails here (WRONGKIND): this script frees exclusive locks only.
local holder = parse_lock(redis.call('GET', KEYS[1]))
local held = redis.call('DEL', KEYS[1])
local client = holder and string.match(holder, '^([^:]+):')
if client then
  -- Best effort: a user whose ACL allows no channels still frees the lock (the holder's renewal
  -- then finds the loss).
  redis.pcall('PUBLISH', ARGV[2] .. client, 'lost ' .. holder .. ' ' .. KEYS[1])
end
local now_ms, now_us = server_time()
if grant_next(now_ms, now_us, ARGV[1]) then
  return {held, 1}
end
return {held, 0}
