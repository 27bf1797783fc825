-- semaphore_acquire.lua: take one of a semaphore's permits, or queue for one; also re-checks and
-- withdraws a waiter. It answers as acquire.lua does, so that the engine drives every kind of
-- lock the same way.
--
-- KEYS[1] the semaphore's marker; its fence, queue, holders and holds are named after it (see
--         fence.lua, queue.lua, holders.lua, semaphore.lua)
-- ARGV[1..5] as acquire.lua's (there is no 'reenter': a permit is a lease, owned by no thread)
-- ARGV[6] the permits the caller declared the semaphore with; '0' for a withdrawal ('giveup',
--         'abandon'), which does not check them
--
-- Returns as acquire.lua; a permit's fencing token is larger than every token issued before for
-- the name. A waiter at the head of the queue gets a permit before anyone who asks later.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua

local owner, lease, mode, retention = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local entry_ms, claim_ms, acked, channel = string.match(ARGV[5], '^(%d+) (%d+) ([01]) (.+)$')
local permits = tonumber(ARGV[6])

-- The common cases first, before the rest is set up (Redis runs a script's every line on every
-- call): a 'wait' or 'try' on a semaphore marked with the declared permits, whose marker needs no
-- refresh and lasts well beyond what this call would keep it for, whose holder index has no member
-- due for a look (see holders.lua: every hold it lists counts as it is), by a caller with no hold,
-- when either
--   every permit is held: a 'wait' queues, and both answer when the soonest of those holds ends;
--   or fewer holders are listed than there are permits and nobody is queued: the caller takes one.
-- It only reads until one of these is certain; anything else goes on to the general code below,
-- which does the same in these cases (and also looks up the members due).
if (mode == 'wait' or mode == 'try') and redis.call('GET', KEYS[1]) == 'semaphore ' .. ARGV[6] then
  local name_ttl, r = redis.call('PTTL', KEYS[1]), tonumber(retention)
  local now_ms, now_us = server_time()
  local first = redis.call('ZRANGE', KEYS[1] .. ':held', 0, 0, 'WITHSCORES')
  local holders, soonest = 0, -1
  if #first > 0 then
    holders, soonest = redis.call('ZCARD', KEYS[1] .. ':held'), tonumber(first[2]) - now_ms
  end
  -- An empty index lists no hold, so the caller has none (a hold never outlives its index).
  local usual = name_ttl >= r - math.min(math.floor(r / 10), 1000)
      and (#first == 0 or (soonest > 0 and redis.call('EXISTS', KEYS[1] .. ':h:' .. owner) == 0))
  if usual and holders >= permits then
    if mode == 'try' then
      return {0, 0, soonest}
    elseif name_ttl >= tonumber(entry_ms) + 1000 then
      enqueue(owner, now_ms, now_us, tonumber(entry_ms), ARGV[2] .. ' ' .. claim_ms .. ' ' .. channel)
      return {0, 0, soonest, math.max(read_fence(), now_us - 1)}
    end
  elseif usual and name_ttl >= lease + 1000 and redis.call('EXISTS', QUEUE) == 0 then
    local token = issue_token(now_us, retention)
    redis.call('SET', KEYS[1] .. ':h:' .. owner, lock_value(owner, token, 1, ARGV[2], now_us, '-'), 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1] .. ':held', math.floor(now_us / 1000) + lease, owner)
    if holders == 0 then
      -- A new index: it lasts as long as the marker (see holders.lua's add_hold).
      redis.call('PEXPIRE', KEYS[1] .. ':held', name_ttl)
    end
    return {1, token, 1}
  end
end

-- @include holders.lua
-- @include semaphore.lua

if permits > 0 then
  claim_kind('semaphore ' .. ARGV[6], 'a semaphore of ' .. ARGV[6] .. ' permits', retention)
else
  permits = declared_permits()
end
local now_ms, now_us = server_time()

-- See acquire.lua's issued(): one below the clock, so that a grant in this microsecond is above it.
local function issued()
  return math.max(read_fence(), now_us - 1)
end

local holder, htoken, hcount, hlease, hsince, hwaiters, hattempt = hold_of(owner)
if holder then
  if mode == 'abandon' then
    drop_hold(HOLDERS, owner)
    grant_permits(permits, live_holders(HOLDERS, now_ms), now_ms, now_us, retention)
    return {-1, 0, 0}
  end
  if acked == '1' then
    redis.call('SET', hold_key(owner), lock_value(holder, htoken, hcount, hlease, hsince, hwaiters, hattempt),
        'KEEPTTL')
  end
  return {3, tonumber(htoken), 1}
end

if mode == 'reenter' then
  return {-2, 0, 0}
end
if mode == 'giveup' or mode == 'abandon' then
  forget_waiter(owner)
  -- A waiter that leaves may have held up the ones behind it.
  grant_permits(permits, live_holders(HOLDERS, now_ms), now_ms, now_us, retention)
  return {-1, 0, 0}
end
if mode == 'recheck' and not redis.call('ZSCORE', QUEUE, owner) then
  return {-3, 0, 0, issued()}
end

-- soonest: when the first of the live holds ends (what a waiter waits for at most before asking
-- again, in case nobody releases).
local live, soonest = live_holders(HOLDERS, now_ms)
if live < permits then
  local first = first_live_waiter(now_ms)
  if first and first ~= owner then
    -- Others wait ahead of the caller: they get the free permits first (the caller among them,
    -- if it is queued and its turn comes).
    grant_permits(permits, live, now_ms, now_us, retention)
    local granted, token = hold_of(owner)
    if granted then
      return {3, tonumber(token), 1}
    end
    live, soonest = live_holders(HOLDERS, now_ms)
    first = first_live_waiter(now_ms)
  end
  if live < permits and (not first or first == owner) then
    forget_waiter(owner)
    local token = issue_token(now_us, retention)
    add_hold(HOLDERS, owner, token, lease, now_us)
    -- Permits left over go to the waiters that were behind the caller.
    grant_permits(permits, live + 1, now_ms, now_us, retention)
    return {1, token, 1}
  end
end

if mode ~= 'try' then
  enqueue(owner, now_ms, now_us, tonumber(entry_ms), ARGV[2] .. ' ' .. claim_ms .. ' ' .. channel)
  keep_name(entry_ms)
  return {0, 0, soonest, issued()}
end
return {0, 0, soonest}
