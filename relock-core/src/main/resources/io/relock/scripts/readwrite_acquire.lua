-- readwrite_acquire.lua: take a read-write lock to read or to write, re-enter it, or queue for it;
-- also re-checks and withdraws a waiter. It answers as acquire.lua does, so that the engine
-- drives every kind of lock the same way.
--
-- KEYS[1] the name's marker; its fence, queue, holders and holds are named after it (see
--         fence.lua, queue.lua, holders.lua, readwrite.lua)
-- ARGV[1..5] as acquire.lua's
-- ARGV[6] the lane: 'r' to read (shared with other readers), 'w' to write (alone)
-- ARGV[7] for a reader: the owner id of the same thread's write hold, or '': a thread that holds
--         the lock to write may take it to read as well (then let go of the write hold: a
--         downgrade), ahead of the queue, in a read epoch of its own (see readwrite.lua)
--
-- Returns as acquire.lua, but {1, token, 1, serial} and {3, token, 1, serial} also carry the
-- grant's serial, which for a reader that joined a read epoch is not its token (see readwrite.lua).
-- Waiters are served in arrival order, readers and writers alike, so a stream of readers cannot
-- starve a writer, nor the reverse; a caller that finds the lock free once those ahead of it are
-- served is served too.

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include holders.lua
-- @include readwrite.lua

local owner, lease, mode, retention, lane = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[6]
local entry_ms, claim_ms, acked, channel = string.match(ARGV[5], '^(%d+) (%d+) ([01]) (.+)$')
local set = holders_of(lane)
claim_kind('readwrite', 'a read-write lock', retention)
local now_ms, now_us = server_time()

-- See acquire.lua's issued(): one below the clock, so that a grant in this microsecond is above it.
local function issued()
  return math.max(read_fence(), now_us - 1)
end

-- The reply for a hold the caller has: its token, and the grant's serial (a writer's is its token).
local function held(token, since)
  if lane == 'r' then
    return {3, tonumber(token), 1, tonumber(since)}
  end
  return {3, tonumber(token), 1, tonumber(token)}
end

local holder, htoken, hcount, hlease, hsince, hwaiters, hattempt = hold_of(owner)
if holder then
  if mode == 'reenter' then
    -- The count in Redis is for operators; the client keeps the one it relies on.
    local count = tonumber(hcount) + 1
    -- Never shorter than it was; the value keeps the longest lease asked (see lockvalue.lua).
    local px = math.max(lease, redis.call('PTTL', hold_key(owner)))
    redis.call('SET', hold_key(owner), lock_value(owner, htoken, count, math.max(lease, tonumber(hlease)), hsince,
        hwaiters, hattempt), 'PX', px)
    keep_name(px)
    return {2, tonumber(htoken), count}
  end
  if mode == 'abandon' then
    drop_hold(set, owner)
    grant_waiting(now_ms, now_us, retention)
    return {-1, 0, 0}
  end
  if acked == '1' then
    redis.call('SET', hold_key(owner), lock_value(holder, htoken, hcount, hlease, hsince, hwaiters, hattempt),
        'KEEPTTL')
  end
  return held(htoken, hsince)
end

if mode == 'reenter' then
  return {-2, 0, 0}
end
if mode == 'giveup' or mode == 'abandon' then
  forget_waiter(owner)
  -- A waiter that leaves may have held up the ones behind it (readers behind a writer).
  grant_waiting(now_ms, now_us, retention)
  return {-1, 0, 0}
end
if mode == 'recheck' and not redis.call('ZSCORE', QUEUE, owner) then
  return {-3, 0, 0, issued()}
end

-- wsoon, rsoon: when the first live write hold and read hold end (see live_holders).
local writers, wsoon, writer = live_holders(WRITERS, now_ms)
local readers, rsoon, reader = live_holders(READERS, now_ms)
local downgrade = lane == 'r' and writers == 1 and writer == ARGV[7]
local function free()
  return (lane == 'w' and writers == 0 and readers == 0) or (lane == 'r' and (writers == 0 or downgrade))
end
if free() then
  local first = first_live_waiter(now_ms)
  if first and first ~= owner and not downgrade then
    -- Others wait ahead of the caller: they go first (the caller among them, if it is queued and
    -- its turn comes); if that leaves the lock free for the caller with nobody ahead, it goes too.
    grant_waiting(now_ms, now_us, retention)
    local granted, token, _, _, since = hold_of(owner)
    if granted then
      return held(token, since)
    end
    writers, wsoon, writer = live_holders(WRITERS, now_ms)
    readers, rsoon, reader = live_holders(READERS, now_ms)
    first = first_live_waiter(now_ms)
  end
  if free() and (downgrade or not first or first == owner) then
    forget_waiter(owner)
    -- A downgrade opens an epoch above the write hold's token, or joins the one its thread's
    -- other read holds opened (no other reader is granted while the write hold lasts).
    local token, serial = lane_token(lane, read_epoch(reader), now_us, retention)
    add_hold(set, owner, token, lease, now_us, serial)
    if lane == 'r' then
      grant_waiting(now_ms, now_us, retention) -- the readers queued right behind the caller
    end
    return {1, token, 1, serial}
  end
end

if mode ~= 'try' then
  enqueue(owner, now_ms, now_us, tonumber(entry_ms), ARGV[2] .. ' ' .. claim_ms .. ' ' .. lane .. ' ' .. channel)
  keep_name(entry_ms)
  return {0, 0, sooner(wsoon, rsoon), issued()}
end
return {0, 0, sooner(wsoon, rsoon)}
