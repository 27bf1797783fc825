-- readwrite_release.lua: release a read or write hold of a read-write lock (one of several, or
-- all of them), and hand the lock on in arrival order.
--
-- KEYS[1] the name's marker; its fence, queue, holders and holds are named after it
-- ARGV[1..4] as release.lua's (no hand-over within the client: ARGV[4] is '')
-- ARGV[5] the lane of the hold: 'r' or 'w'
--
-- Returns as release.lua: {1, count} one of several holds dropped; {2, 1} released and handed on;
-- {2, 0} released; {-1, 0} the caller holds nothing (its lease ran out: it leaves the holder index,
-- and the waiters its hold kept out are served).

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include holders.lua
-- @include readwrite.lua

local owner, retention = ARGV[1], ARGV[3]
local holder, token, count, lease, since, waiters, attempt = hold_of(owner)
if not holder then
  -- Its hold may have been the one in the waiters' way (even if another script already found it
  -- gone and dropped it from the index, which serves nobody).
  redis.call('ZREM', holders_of(ARGV[5]), owner)
  local now_ms, now_us = server_time()
  grant_waiting(now_ms, now_us, retention)
  refresh_name(retention)
  return {-1, 0}
end
if ARGV[2] ~= '1' then
  count = math.max(1, tonumber(count) - 1)
  redis.call('SET', hold_key(owner), lock_value(holder, token, count, lease, since, waiters, attempt), 'KEEPTTL')
  return {1, count}
end
drop_hold(holders_of(ARGV[5]), owner)
refresh_name(retention)
local now_ms, now_us = server_time()
return {2, grant_waiting(now_ms, now_us, retention) > 0 and 1 or 0}
