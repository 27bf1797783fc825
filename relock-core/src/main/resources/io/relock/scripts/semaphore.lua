-- semaphore.lua: how a semaphore's permits are handed to its waiters, shared by its scripts. Not
-- a script of its own: the loader inlines it where a script says "-- @include semaphore.lua",
-- once, after what it requires (the line below; LuaScript assembles fragments in that order).
-- @requires fence.lua queue.lua holders.lua
-- KEYS[1] is the semaphore's marker "semaphore <permits>" (see holders.lua); HOLDERS the index of
-- owners holding a permit, each with a hold key of its own. A client's local state of the
-- semaphore is named KEYS[1] .. '#s' .. permits (see queue.lua's notify).

local HOLDERS = KEYS[1] .. ':held'
NAME_SETS[1] = HOLDERS

-- The permits the semaphore was declared with, as its marker says; 0 if it has none.
local function declared_permits()
  return tonumber(string.match(redis.call('GET', KEYS[1]) or '', '^semaphore (%d+)$') or '0')
end

-- Hands the permits that `live` holders leave free to the waiters at the head of the queue, in
-- order, each told on its channel; a grant first lasts only the waiter's claim time (see
-- handoff.lua). Returns how many were handed.
local function grant_permits(permits, live, now_ms, now_us, retention_ms)
  local handed = 0
  while live + handed < permits do
    local waiter, entry = first_live_waiter(now_ms)
    if not waiter then
      break
    end
    forget_waiter(waiter)
    local lease, claim, channel = string.match(entry, '^%d+ (%d+) (%d+) (.+)$')
    local token = issue_token(now_us, retention_ms)
    add_hold(HOLDERS, waiter, token, lease, now_us, nil, math.min(tonumber(lease), tonumber(claim)))
    notify(channel, token, waiter, KEYS[1] .. '#s' .. permits)
    handed = handed + 1
  end
  return handed
end
