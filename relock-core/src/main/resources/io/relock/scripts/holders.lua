-- holders.lua: the holds of a lock several owners may hold at once (a semaphore's permits, a
-- read-write lock's readers and writer), shared by their scripts. Not a script of its own: the
-- loader inlines it where a script says "-- @include holders.lua" (after lockvalue.lua,
-- fence.lua and queue.lua).
--
-- KEYS[1] marks the name's kind, so that one name is never used as two kinds at once: "semaphore
-- <permits>" or "readwrite", kept for the fence retention after its last use, which every
-- acquisition, release and renewal of a hold of the name extends (an exclusive lock keeps its
-- value there instead, see lockvalue.lua). Each hold is a key of its own, named after
-- KEYS[1] and so in its Redis Cluster slot:
--   HOLD    KEYS[1] .. ':h:' .. owner: the hold's value (see lockvalue.lua), expiring with its
--           lease, so that a holder that died gives its hold back at the lease's end
-- and sets of holders index them (a semaphore's KEYS[1] .. ':holders'; a read-write lock's
-- KEYS[1] .. ':r' and KEYS[1] .. ':w'): a member whose hold key expired is removed when met.

local function hold_key(owner)
  return KEYS[1] .. ':h:' .. owner
end

-- Checks that the name is of kind `marker` (or unused) and marks it so for `retention_ms` more.
-- `what` describes the kind for the error, such as "a semaphore of 5 permits".
local function claim_kind(marker, what, retention_ms)
  local found = redis.call('GET', KEYS[1])
  if found and found ~= marker then
    local permits = string.match(found, '^semaphore (%d+)$')
    local is = permits and ('a semaphore of ' .. permits .. ' permits')
        or (found == 'readwrite' and 'a read-write lock')
        or (string.find(found, '^%S+ %d+ %d+ %d+ %d+ [w-] %S+$') and 'an exclusive lock')
        or 'a key relock did not write'
    error('WRONGKIND the name is ' .. is .. ', not ' .. what)
  end
  if not found and redis.call('EXISTS', KEYS[1] .. ':q') == 1 then
    -- No marker, yet waiters: an exclusive lock's (which keeps no marker), whose holder is gone
    -- and whose next holder is not granted yet.
    error('WRONGKIND the name has waiters of an exclusive lock, not ' .. what)
  end
  redis.call('SET', KEYS[1], marker, 'PX', retention_ms)
end

-- The members of holder set `set` whose hold is still there; the others leave the set.
local function live_holders(set)
  local live = {}
  for _, owner in ipairs(redis.call('SMEMBERS', set)) do
    if redis.call('EXISTS', hold_key(owner)) == 1 then
      live[#live + 1] = owner
    else
      redis.call('SREM', set, owner)
    end
  end
  return live
end

-- The soonest any of `owners` holds end, in ms from now; -1 if none holds.
local function soonest_end(owners)
  local soonest = -1
  for _, owner in ipairs(owners) do
    local pttl = redis.call('PTTL', hold_key(owner))
    if pttl > 0 and (soonest < 0 or pttl < soonest) then
      soonest = pttl
    end
  end
  return soonest
end

-- Makes `owner` a holder in `set` with `token`, for `lease_ms` (first only `px_ms` from now, if
-- given), granted at `since` (default: now, `now_us`).
local function add_hold(set, owner, token, lease_ms, now_us, since, px_ms)
  redis.call('SET', hold_key(owner), lock_value(owner, token, 1, lease_ms, since or now_us, '-'), 'PX', px_ms or lease_ms)
  redis.call('SADD', set, owner)
end

-- The hold of `owner`, parsed (see parse_lock); nothing if it has none.
local function hold_of(owner)
  return parse_lock(redis.call('GET', hold_key(owner)))
end

-- Ends the hold of `owner` in `set`.
local function drop_hold(set, owner)
  redis.call('DEL', hold_key(owner))
  redis.call('SREM', set, owner)
end
