-- holders.lua: the holds of a lock several owners may hold at once (a semaphore's permits, a
-- read-write lock's readers and writer), shared by their scripts. Not a script of its own: the
-- loader inlines it where a script says "-- @include holders.lua" (after lockvalue.lua,
-- fence.lua and queue.lua).
--
-- KEYS[1] marks the name's kind, so that one name is never used as two kinds at once: "semaphore
-- <permits>" or "readwrite" (an exclusive lock keeps its value there instead, see lockvalue.lua).
-- Each hold is a key of its own, named after KEYS[1] and so in its Redis Cluster slot:
--   HOLD    KEYS[1] .. ':h:' .. owner: the hold's value (see lockvalue.lua), expiring with its
--           lease, so that a holder that died gives its hold back at the lease's end
-- and sets of holders index them (NAME_SETS: a semaphore's KEYS[1] .. ':holders'; a read-write
-- lock's KEYS[1] .. ':r' and KEYS[1] .. ':w'): a member whose hold key expired is removed when met.
--
-- Every key here expires, and none before what depends on it: the marker lasts about the fence
-- retention after its last acquisition or release (less at most a second, see refresh_name), and
-- never ends before a hold or a queue entry
-- of the name (else another kind could take the name beside them); each holder set lasts at least
-- as long as the marker (else a hold would drop out of its set and be overlooked). Expiries are
-- only ever raised (keep_name); renew.lua keeps the same rule.

-- The holder sets of the name's kind: filled by semaphore.lua or readwrite.lua.
local NAME_SETS = {}

local function hold_key(owner)
  return KEYS[1] .. ':h:' .. owner
end

-- Raises the expiry of `key` to `ms` from now where it would end sooner (or has none); never
-- lowers it. Returns the key's time to live after that (-2: there is no such key).
local function keep_at_least(key, ms)
  local pttl = redis.call('PTTL', key)
  if pttl ~= -2 and pttl < tonumber(ms) then
    redis.call('PEXPIRE', key, ms)
    return tonumber(ms)
  end
  return pttl
end

-- Keeps the name's marker at least `ms` more, and its holder sets with it whenever it is raised
-- (a set never ends before the marker: they are raised together, and a new set is given the
-- marker's time to live when it is made, see add_hold).
local function keep_name(ms)
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl ~= -2 and pttl < tonumber(ms) then
    redis.call('PEXPIRE', KEYS[1], ms)
    for _, set in ipairs(NAME_SETS) do
      keep_at_least(set, ms)
    end
  end
end

-- Keeps the marker for the fence retention from now: refreshed at most about once a second (when
-- more than a tenth of the retention, at most 1 s, has passed since), so that a busy name does not
-- rewrite it on every call.
local function refresh_name(retention_ms)
  local retention = tonumber(retention_ms)
  keep_name(retention - math.min(math.floor(retention / 10), 1000))
end

-- Checks that the name is of kind `marker` (or unused) and marks it so for at least `retention_ms`
-- more. `what` describes the kind for the error, such as "a semaphore of 5 permits".
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
  if found then
    refresh_name(retention_ms)
    return
  end
  if redis.call('EXISTS', KEYS[1] .. ':q') == 1 then
    -- No marker, yet waiters: an exclusive lock's (which keeps no marker), whose holder is gone
    -- and whose next holder is not granted yet.
    error('WRONGKIND the name has waiters of an exclusive lock, not ' .. what)
  end
  redis.call('SET', KEYS[1], marker, 'PX', retention_ms)
  for _, set in ipairs(NAME_SETS) do
    keep_at_least(set, retention_ms) -- left by holds whose marker Redis lost (a restart, a failover)
  end
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
-- given), granted at `since` (default: now, `now_us`). The marker and the set outlast the lease.
local function add_hold(set, owner, token, lease_ms, now_us, since, px_ms)
  redis.call('SET', hold_key(owner), lock_value(owner, token, 1, lease_ms, since or now_us, '-'), 'PX', px_ms or lease_ms)
  redis.call('SADD', set, owner)
  keep_name(lease_ms)
  if redis.call('PTTL', set) == -1 then
    redis.call('PEXPIRE', set, math.max(redis.call('PTTL', KEYS[1]), tonumber(lease_ms)))
  end
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
