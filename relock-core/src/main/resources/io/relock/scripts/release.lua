-- release.lua: release one hold; at the last one, free the lock and hand it to the next waiter.
--
-- KEYS[1] lock hash, KEYS[2] fence, KEYS[3] wait queue, KEYS[4] waiter table (see handoff.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] how long the fence key is kept after its last use, in milliseconds
-- ARGV[3] '1' to release every hold at once (closing a lost or abandoned hold), else '0'
--
-- Returns {code, n}:
--   { 1, count}  one hold released, the caller still holds the lock count times
--   { 2, 1}      released, and handed to the next waiter
--   { 2, 0}      released, nobody waits: the lock is free
--   { 0, 0}      held by another owner: not touched
--   {-1, 0}      nobody holds it (the caller's lease expired)

-- @include handoff.lua

local holder = redis.call('HGET', KEYS[1], 'o')
if not holder then
  return {-1, 0}
end
if holder ~= ARGV[1] then
  return {0, 0}
end
local count = 0
if ARGV[3] ~= '1' then
  count = redis.call('HINCRBY', KEYS[1], 'c', -1)
end
if count > 0 then
  return {1, count}
end
redis.call('DEL', KEYS[1])
local now_ms, now_us = server_time()
if grant_next(now_ms, now_us, ARGV[2]) then
  return {2, 1}
end
return {2, 0}
