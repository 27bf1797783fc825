-- holders.lua: the holds of a lock several owners may hold at once (a semaphore's permits, a
-- read-write lock's readers and writer), shared by their scripts. Not a script of its own: the
-- loader inlines it where a script says "-- @include holders.lua", once, after what it
-- requires (the line below; LuaScript assembles fragments in that order).
-- @requires lockvalue.lua
-- KEYS[1] marks the name's kind, so that one name is never used as two kinds at once: "semaphore
-- <permits>" or "readwrite" (an exclusive lock keeps its value there instead, see lockvalue.lua).
-- Each hold is a key of its own, named after KEYS[1] and so in its Redis Cluster slot:
--   HOLD    KEYS[1] .. ':h:' .. owner: the hold's value (see lockvalue.lua), expiring with its
--           lease, so that a holder that died gives its hold back at the lease's end
-- and holder indexes list them (NAME_SETS: a semaphore's KEYS[1] .. ':held'; a read-write lock's
-- KEYS[1] .. ':readers' and KEYS[1] .. ':writers'): sorted sets of owner ids, each scored with a
-- time (server ms) no later than its hold key's end: when the key is written, the end it is given
-- (at a grant, the end of its claim time or lease); a write that moves the end later (a
-- confirmation, a re-entry, a watchdog renewal) may leave the score, and one that brings it sooner
-- (a renewal after a re-entry raised it) lowers the score with it (renew.lua). While the clock is
-- short of a member's score its hold counts without a look at its key; once the clock reaches it,
-- the key is looked up, and the member scored again with the key's end, or removed if it is gone.
-- Counting the holders thus takes two commands, not a look at every hold. The scripts remove a
-- member whenever they delete its key; a key deleted otherwise (by hand, by eviction) still counts
-- until its score passes, a lease at most: a permit or lane kept a while longer, never one given
-- twice.
--
-- Every key here expires, and none before what depends on it: the marker lasts about the fence
-- retention after its last acquisition or release (less at most a second, see refresh_name), and
-- never ends before a hold or a queue entry
-- of the name (else another kind could take the name beside them); each holder index lasts at
-- least as long as the marker (else a hold would drop out of it and be overlooked). Expiries are
-- only ever raised (keep_name); renew.lua keeps the same rule.

-- The holder indexes of the name's kind: filled by semaphore.lua or readwrite.lua.
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

-- The marker's time to live as this call last read or set it (nil: not yet), so that a call keeps
-- it with one PTTL however often it asks. Redis's clock moves while a script runs, so a time read
-- earlier overstates the marker's by as long as the call has run: it is trusted only a second
-- beyond what is asked (no script runs that long), else read again.
local name_ttl

-- Keeps the name's marker at least `ms` more (raising it to `to` ms, if given, else to `ms`, when
-- it would end sooner), and its holder indexes with it whenever it is raised (an index never ends
-- before the marker: they are raised together, and a new index is given the marker's time to live
-- when it is made, see add_hold).
local function keep_name(ms, to)
  ms = tonumber(ms)
  if name_ttl and name_ttl >= ms + 1000 then
    return
  end
  local pttl = redis.call('PTTL', KEYS[1])
  name_ttl = pttl
  if pttl ~= -2 and pttl < ms then
    to = to or ms
    redis.call('PEXPIRE', KEYS[1], to)
    name_ttl = to
    for _, set in ipairs(NAME_SETS) do
      keep_at_least(set, to)
    end
  end
end

-- Keeps the marker for the fence retention from now, rewritten at most about once a second: only
-- once more than a tenth of the retention (at most 1 s) has passed since it was last set to the
-- whole retention, so that a busy name does not rewrite it (and its holder indexes) on every call.
local function refresh_name(retention_ms)
  local retention = tonumber(retention_ms)
  keep_name(retention - math.min(math.floor(retention / 10), 1000), retention)
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
  name_ttl = tonumber(retention_ms)
  for _, set in ipairs(NAME_SETS) do
    keep_at_least(set, retention_ms) -- left by holds whose marker Redis lost (a restart, a failover)
  end
end

-- Holder indexes this call knows to be there, each with the expiry every index is given when made
-- (see add_hold): set -> true. An index's last member leaving deletes it, and with it the mark.
local sets_made = {}

-- How many members of holder index `set` hold at `now_ms` (server time); the soonest any of them
-- may end, in ms from now (the lowest score; -1 if none holds); and the member with that score.
-- Members whose score the clock has reached are looked up first (see the top of this file): scored
-- again with their hold's end, or removed if the hold is gone; the others count as they are.
-- Usually no member is due, and it takes two commands however many hold.
local function live_holders(set, now_ms)
  local first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if #first > 0 and tonumber(first[2]) <= now_ms then
    for _, owner in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', now_ms)) do
      local pttl = redis.call('PTTL', hold_key(owner))
      if pttl == -2 then
        redis.call('ZREM', set, owner)
      else
        -- A hold that ends now (0) is looked up again at the next call; one that never expires
        -- (-1, which relock never writes) a minute later.
        redis.call('ZADD', set, now_ms + (pttl >= 0 and pttl or 60000), owner)
      end
    end
    first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  end
  if #first == 0 then
    sets_made[set] = nil
    return 0, -1, nil
  end
  sets_made[set] = true
  return redis.call('ZCARD', set), math.max(0, tonumber(first[2]) - now_ms), first[1]
end

-- The sooner of two ends as live_holders gives them (-1: none).
local function sooner(a, b)
  if a < 0 or (b >= 0 and b < a) then
    return b
  end
  return a
end

-- Makes `owner` a holder in `set` with `token`, for `lease_ms` (first only `px_ms` from now, if
-- given), granted at `since` (default: now, `now_us`, the server time TIME gave). The marker and the
-- index outlast the lease.
local function add_hold(set, owner, token, lease_ms, now_us, since, px_ms)
  local px = px_ms or lease_ms
  redis.call('SET', hold_key(owner), lock_value(owner, token, 1, lease_ms, since or now_us, '-'), 'PX', px)
  -- The key ends px from the time Redis takes for the SET: TIME's or later on Redis 6.2 and 7.0,
  -- where the score is then a lower bound; the script's start on Redis 7.2 and later, where TIME
  -- gives that time too. (A score past the key's end would only keep its permit that long.)
  redis.call('ZADD', set, math.floor(now_us / 1000) + tonumber(px), owner)
  keep_name(lease_ms)
  if not sets_made[set] then
    if redis.call('PTTL', set) == -1 then
      redis.call('PEXPIRE', set, math.max(redis.call('PTTL', KEYS[1]), tonumber(lease_ms)))
    end
    sets_made[set] = true
  end
end

-- The hold of `owner`, parsed (see parse_lock); nothing if it has none.
local function hold_of(owner)
  return parse_lock(redis.call('GET', hold_key(owner)))
end

-- Ends the hold of `owner` in `set`; whether it had one (its key was there).
local function drop_hold(set, owner)
  local had = redis.call('DEL', hold_key(owner)) == 1
  redis.call('ZREM', set, owner)
  sets_made[set] = nil
  return had
end
