-- semaphore_release.lua: give a permit back, and hand the permits left free to the waiters.
--
-- KEYS[1] the semaphore's marker; its fence, queue, holders and holds are named after it
-- ARGV[1] owner id of the caller
-- ARGV[2] '1' (a permit is one hold: there is nothing to drop one of)
-- ARGV[3] how long the fence key and the marker are kept after their last use, in milliseconds
-- ARGV[4] '' or "<successor> <ahead>": a queued owner of the caller's own client to pass the permit
--         to directly, as release.lua's ARGV[4] (ahead '1': even if others queued first)
--
-- Returns as release.lua: {3, token} released, and the permit passed to the successor with this
-- new fencing token (for its whole lease: its client completes it, nobody is notified); {2, 1}
-- released and a permit handed to a waiter, {2, 0} released, {-1, 0} the caller holds no permit
-- (its lease ran out, or it was never granted: it leaves the holder index, and the permit its hold
-- kept is handed on).

-- The common case first, before the rest is set up: nobody queued (neither queue key: a live
-- entry keeps both, see queue.lua's enqueue), so no waiter is owed the permit, not even a
-- successor the caller named; and a marker that needs no refresh (see holders.lua's
-- refresh_name). Dropping the caller's hold is then all there is to do. Anything else (the hold
-- already gone included) goes on to the general code below.
if redis.call('EXISTS', KEYS[1] .. ':q', KEYS[1] .. ':qi') == 0 then
  local r = tonumber(ARGV[3])
  if redis.call('PTTL', KEYS[1]) >= r - math.min(math.floor(r / 10), 1000)
      and redis.call('DEL', KEYS[1] .. ':h:' .. ARGV[1]) == 1 then
    redis.call('ZREM', KEYS[1] .. ':held', ARGV[1])
    return {2, 0}
  end
end

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include holders.lua
-- @include semaphore.lua

local owner, retention = ARGV[1], ARGV[3]
local permits = declared_permits()
if not drop_hold(HOLDERS, owner) then
  -- Its hold may have been the one in the waiters' way (even if another script already found it
  -- gone and dropped it from the index, which serves nobody).
  local now_ms, now_us = server_time()
  grant_permits(permits, live_holders(HOLDERS, now_ms), now_ms, now_us, retention)
  if permits > 0 then
    refresh_name(retention)
  end
  return {-1, 0}
end
if permits > 0 then
  refresh_name(retention)
end
local now_ms, now_us = server_time()
local live = live_holders(HOLDERS, now_ms)
local successor, entry
if live < permits then
  successor, entry = successor_to_pass(ARGV[4], now_ms)
end
if successor then
  forget_waiter(successor)
  local token = issue_token(now_us, retention)
  add_hold(HOLDERS, successor, token, string.match(entry, '^%d+ (%d+) '), now_us)
  -- Permits left over (holds that expired meanwhile) go to the waiters in line.
  grant_permits(permits, live + 1, now_ms, now_us, retention)
  return {3, token}
end
local handed = grant_permits(permits, live, now_ms, now_us, retention)
return {2, handed > 0 and 1 or 0}
