-- semaphore_permits.lua: how many of a semaphore's permits are free now, and what holds them.
--
-- KEYS[1] the semaphore's marker; its holders and holds are named after it
-- ARGV[1] the permits the caller declared the semaphore with
--
-- Returns {free permits, holders, waiters}, the holders as holders.lua counts them (one whose lease
-- ran out is forgotten once the clock passes its score). Fails with WRONGKIND if the name is another
-- kind, or a semaphore of other permits.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include holders.lua
-- @include semaphore.lua

local permits = tonumber(ARGV[1])
local found = redis.call('GET', KEYS[1])
if found and found ~= 'semaphore ' .. permits then
  claim_kind('semaphore ' .. permits, 'a semaphore of ' .. permits .. ' permits', 1)
end
local now_ms = server_time()
local live = live_holders(HOLDERS, now_ms)
return {math.max(0, permits - live), live, redis.call('ZCARD', QUEUE)}
