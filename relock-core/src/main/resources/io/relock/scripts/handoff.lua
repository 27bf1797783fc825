-- handoff.lua: how an exclusive lock is handed to its next waiter, shared by acquire.lua,
-- release.lua and force_unlock.lua. Not a script of its own: the loader inlines it where a script
-- says "-- @include handoff.lua", once, after what it requires (the line below).
-- @requires lockvalue.lua fence.lua queue.lua
-- KEYS[1] is the lock (see lockvalue.lua), expiring with the lease; its fence and queue are named
-- after it (fence.lua, queue.lua). Invariant: while the queue has entries, the fence and the lock
-- (if held) say 'w'. A 'w' left after the queue emptied only sends the next acquisition or release
-- down the longer path, which clears it.

-- Marks the fence and, if held, the lock as having waiters (or not), where they say otherwise.
-- Marking waiters always writes the fence, so that it outlives the waiters' wait.
local function mark_waiters(waiters, retention_ms)
  local last, marked, exists = read_fence()
  if marked ~= waiters or not exists or waiters then
    write_fence(last, waiters, retention_ms)
  end
  local owner, token, count, lease, since, flag, attempt = parse_lock(redis.call('GET', KEYS[1]))
  if owner and (flag == 'w') ~= waiters then
    keep_lock(owner, token, count, lease, since, waiters and 'w' or '-', attempt)
  end
end

-- Makes `waiter`, already off the queue, the holder for `lease_ms` with a new token, marking
-- whether others still wait; the key first lasts `px_ms` (at most the lease) if given. Returns the
-- token.
local function hand_to(waiter, lease_ms, now_us, retention_ms, px_ms)
  local more = redis.call('EXISTS', QUEUE) == 1
  local token = issue_marked_token(now_us, more, retention_ms)
  set_lock(waiter, token, 1, lease_ms, now_us, more and 'w' or '-', nil, false, px_ms)
  return token
end

-- Gives the (free) lock to the queued `waiter` for `lease_ms` with a new token, taking it off the
-- queue and marking whether others still wait. Returns the token.
local function give_to(waiter, lease_ms, now_us, retention_ms)
  forget_waiter(waiter)
  return hand_to(waiter, lease_ms, now_us, retention_ms)
end

-- Hands the (free) lock to the first live waiter and tells it on its client's channel (see
-- notify in queue.lua), so the waiter needs no further round trip. The grant first lasts
-- only the waiter's claim time: a waiter that died while queued holds the lock up that long, not a
-- whole lease (unless a release that took the lock by mistake put it back for one, see
-- release.lua); a live one extends it if it still holds the lock by then. Returns the new owner, or
-- false when nobody waits (the marks then say so).
local function grant_next(now_ms, now_us, retention_ms)
  local waiter, entry = pop_live_waiter(now_ms)
  if not waiter then
    mark_waiters(false, retention_ms)
    return false
  end
  local lease, claim, channel = string.match(entry, '^%d+ (%d+) (%d+) (.+)$')
  local first = claim
  if tonumber(claim) > tonumber(lease) then
    first = lease
  end
  notify(channel, hand_to(waiter, lease, now_us, retention_ms, first), waiter, KEYS[1])
  return waiter
end
