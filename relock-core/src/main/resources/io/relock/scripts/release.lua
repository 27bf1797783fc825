-- release.lua: release one hold; at the last one, free the lock and hand it to the next waiter.
--
-- KEYS[1] the lock; its fence, queue and waiter table are named after it (see fence.lua, queue.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] '1' to release every hold at once (the last unlock(), a lease close, an abandoned hold);
--         '2' the same for a release that may well find another owner's hold (its lease known
--         lost or past its local deadline, or an attempt sent again after a lost reply): read
--         first and left alone if not the caller's, where '1' takes it with GETDEL and must put
--         it back; '0' to drop one of several holds, which never frees the lock: the client
--         sends it only while it counts more than one hold of its own, and the count kept here
--         may run ahead of the client's after a lost reply, so it never goes below 1
-- ARGV[3] how long the fence key is kept after its last use, in milliseconds
-- ARGV[4] '' or "<successor> <ahead>": a queued owner of the caller's own client to pass the lock
--         to directly; ahead '1' to pass to it even if others queued first, '0' to pass only if it
--         is first in line (the client bounds how often in a row it says '1', so other clients get
--         turns);
--         or "=<follower> <ahead> <ttl ms> <lease ms> <claim ms> <channel>": a waiter of the
--         caller's client that has not asked Redis (it waited in its client for this release). It
--         gets the lock if nobody else is queued, or ahead of them if ahead is '1'; else it is
--         queued behind them (its entry as its own 'wait' would write it: to live ttl ms, with
--         its lease, claim time and channel) and the first is handed the lock. The client names
--         only an owner that has sent nothing, unless this call reaches Redis late, after the
--         client gave up on it and the follower asked for itself.
--
-- Returns {code, n}:
--   { 1, count}  one of several holds dropped ('0'); count is what Redis still counts (at least 1)
--   { 2, 1}      released, and handed to the next waiter
--   { 2, 0}      released, nobody waits: the lock is free
--   { 3, token}  passed to the successor or follower named in ARGV[4], with this new fencing
--                token
--   { 4, 1}      released and handed to the next waiter; the follower named in ARGV[4] queued
--   { 0, 0}      held by another owner: left held by it (after '1', its expiry may come later
--                than before, never sooner: see below)
--   {-1, 0}      nobody holds it (the caller's lease expired)

-- The common case first, before anything else is set up: the caller's lock, every hold at once,
-- nobody queued (the value ends in the '-' waiters mark and the '-' attempt): one command. Taken
-- with GETDEL; '2' and '0' only read it.
local all, taken = ARGV[2] ~= '0', ARGV[2] == '1'
local v
if taken then
  v = redis.call('GETDEL', KEYS[1])
  if v and string.sub(v, -4) == ' - -' and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' and ARGV[4] == '' then
    return {2, 0}
  end
else
  v = redis.call('GET', KEYS[1])
end

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include handoff.lua

-- Anything else the GETDEL took that is not the caller's goes back, or the lock is handed on.
if not v then
  return {-1, 0}
end
if not string.find(v, '^%S+ %d+ %d+ %d+ %d+ [w-] %S+$') then
  if v == 'readwrite' or string.find(v, '^semaphore %d+$') then
    -- The caller's hold ended and the name became another kind since: the marker stays (put back,
    -- kept as long as markers are); the caller's hold is gone.
    if taken then
      redis.call('SET', KEYS[1], v, 'PX', ARGV[3])
    end
    return {-1, 0}
  end
  -- Not a lock (something else wrote the key): left as it was, its expiry unknown if it was
  -- taken, and refused.
  if taken then
    redis.call('SET', KEYS[1], v)
  end
  return redis.error_reply('WRONGTYPE the key does not hold a relock lock')
end
local holder, token, count, lease, since, waiters, attempt = parse_lock(v)
if holder ~= ARGV[1] then
  -- Another owner's hold, taken by '1': its expiry is not in its value, but no write ever set it
  -- to more than its lease from then (see lockvalue.lua), so a lease from now outlasts it. It may
  -- hold on longer than it would have (a whole lease where a hand-over's claim time was left),
  -- never shorter; the client sends '2' wherever it expects this.
  if taken then
    redis.call('SET', KEYS[1], v, 'PX', lease)
  end
  return {0, 0}
end
if not all then
  count = math.max(1, tonumber(count) - 1)
  keep_lock(holder, token, count, lease, since, waiters, attempt)
  return {1, count}
end
if not taken then
  redis.call('DEL', KEYS[1])
end
local retention = ARGV[3]
local follower, ahead, ttl, follower_lease, claim, channel =
    string.match(ARGV[4], '^=(%S+) ([01]) (%d+) (%d+) (%d+) (.+)$')
if follower then
  local now_ms, now_us = server_time()
  if waiters == 'w' and ahead ~= '1' then
    -- Others' turn: the follower queues at the back, and the first live waiter gets the lock
    -- (the follower itself if every entry ahead of it has died: it then hears of it as a waiter).
    enqueue(follower, now_ms, now_us, tonumber(ttl), follower_lease .. ' ' .. claim .. ' ' .. channel)
    grant_next(now_ms, now_us, retention)
    return {4, 1}
  end
  if waiters == 'w' then
    -- An entry of the follower's own, queued by a call it sent after this release failed in the
    -- client (this call was late): the follower gets the lock, and its entry must not get it again.
    forget_waiter(follower)
  end
  return {3, hand_to(follower, tonumber(follower_lease), now_us, retention)}
end
if waiters ~= 'w' then
  return {2, 0}
end
local now_ms, now_us = server_time()
local successor, entry = successor_to_pass(ARGV[4], now_ms)
if successor then
  -- Within one client: no notification needed, the caller completes the successor itself.
  local lease = tonumber(string.match(entry, '^%d+ (%d+) '))
  return {3, give_to(successor, lease, now_us, retention)}
end
return {2, grant_next(now_ms, now_us, retention) and 1 or 0}
