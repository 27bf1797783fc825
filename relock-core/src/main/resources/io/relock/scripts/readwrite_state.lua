-- readwrite_state.lua: what holds a read-write lock now, as holders.lua counts it (forgetting
-- holders whose lease ran out, as every script of the kind does); or, as an operator's last
-- resort, free one lane of it whoever holds it and hand it on.
--
-- KEYS[1] the name's marker; its fence, queue, holders and holds are named after it
-- ARGV[1] 'inspect', or 'force' to end every hold of the lane in ARGV[2]
-- ARGV[2] the lane: 'r' or 'w'
-- ARGV[3] how long the fence key is kept after its last use, in milliseconds ('force')
-- ARGV[4] the channel prefix of relock's clients ('<key prefix>client:'; 'force'): each holder's
--         client (the owner id up to its colon) is told "lost <owner> <lock key>#<lane>" on its
--         channel, so that it checks its hold at once instead of at its next renewal (which remains
--         the fallback when the message is lost)
--
-- Returns {holders of the lane, waiters, last token issued}; 'force' counts the holders it ended.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include holders.lua
-- @include readwrite.lua

local found = redis.call('GET', KEYS[1])
if found and found ~= 'readwrite' then
  claim_kind('readwrite', 'a read-write lock', 1)
end
local set = holders_of(ARGV[2])
local now_ms, now_us = server_time()
local live = live_holders(set, now_ms)
if ARGV[1] == 'force' then
  for _, owner in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    drop_hold(set, owner)
    local client = string.match(owner, '^([^:]+):')
    if client then
      -- Best effort, as in force_unlock.lua: without channel rights the lane is still freed.
      redis.pcall('PUBLISH', ARGV[4] .. client, 'lost ' .. owner .. ' ' .. KEYS[1] .. '#' .. ARGV[2])
    end
  end
  grant_waiting(now_ms, now_us, ARGV[3])
end
return {live, redis.call('ZCARD', QUEUE), (read_fence())}
