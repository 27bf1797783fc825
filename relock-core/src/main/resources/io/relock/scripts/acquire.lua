-- acquire.lua: take the lock, re-enter it, or queue for it; also re-checks and withdraws a waiter.
--
-- KEYS[1] the lock; its fence, queue and waiter table are named after it (see fence.lua, queue.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] lease in milliseconds
-- ARGV[3] mode:
--           'try'     take or re-enter the lock if possible, never queue
--           'wait'    take or re-enter the lock, or queue (the caller then waits for a grant)
--           'recheck' a queued waiter asking again: take it if free, report a grant, refresh entry
--           'giveup'  a waiter whose time ran out: keep the lock if it was granted, else withdraw
--           'abandon' a cancelled waiter: withdraw, and release the lock if it was granted
--           'reenter' re-enter a hold the caller believes it has; never takes a free lock
-- ARGV[4] how long the fence key is kept after its last use, in milliseconds
-- ARGV[5] what only a call that queues or finds the caller holding the lock reads, in one
--         argument (each argument costs Redis time on every call):
--         "<entry ms> <claim ms> <acked> <channel>"
--           entry   how long the queue entry stays valid without a recheck, in milliseconds
--           claim   how long a lock handed to the caller is first kept, in milliseconds
--           acked   '1' if the caller follows this call with WAIT (replica acknowledgements): a
--                   reply that finds the caller holding the lock then also writes (the lock's value
--                   again), so that the WAIT, which counts only this connection's writes, covers
--                   the grant made by another client; else '0'
--           channel the pub/sub channel of the caller's client, for the grant notification
--
-- Returns {code, fencing token, n}:
--   { 1, token, 1}     acquired now
--   { 2, token, count} re-entered ('reenter' only); count is the new hold count in Redis
--   { 3, token, 1}     the caller already holds it: handed to it while it waited, or taken by an
--                      earlier attempt of the same acquisition whose reply was lost (owner ids are
--                      unique per acquisition, so any mode but 'reenter' may be sent again safely)
--   { 0, 0, pttl}      'try': held by another owner
--   { 0, 0, pttl, issued} held by another owner, the caller queued; pttl of that hold, -1 if none
--   {-1, 0, 0}         withdrawn ('giveup' or 'abandon')
--   {-2, 0, 0}         'reenter' found the caller no longer holds the lock: nothing changed
--   {-3, 0, 0, issued} 'recheck' found no queue entry of the caller: nothing changed, queue again
-- issued: no fencing token issued so far for this name is above it; later ones are (see
-- issue_token; should the server clock step back, a live grant looks ended, and the waiter's next
-- recheck finds it). The caller does not hold the lock now, so a grant to it with a token up to
-- 'issued' has ended: a notification of it that arrives after this reply must be ignored.

local owner, mode = ARGV[1], ARGV[3]
local t, now_us_text, swapped, tried

if mode == 'try' or mode == 'wait' then
  -- The common case first, before anything else is set up: nobody waits and the lock is free.
  -- Three commands: the clock; the fence, swapped for the clock (the new token) in one write; the
  -- lock. Only plain string operations here (Redis runs a script's every line on every call).
  t = redis.call('TIME')
  now_us_text = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
  swapped = redis.call('SET', KEYS[1] .. ':fence', now_us_text, 'PX', ARGV[4], 'GET')
  -- A fence of as many digits as the clock and below it, with no waiters mark (which would make it
  -- longer): the token is the clock.
  if swapped and #swapped == #now_us_text and swapped < now_us_text then
    tried = true
    if redis.call('SET', KEYS[1], owner .. ' ' .. now_us_text .. ' 1 ' .. ARGV[2] .. ' ' .. now_us_text .. ' - -', 'NX',
        'PX', ARGV[2]) then
      return {1, tonumber(now_us_text), 1}
    end
  end
end

-- @include lockvalue.lua
-- @include fence.lua
-- @include queue.lua
-- @include handoff.lua

local lease, retention = tonumber(ARGV[2]), ARGV[4]
local entry_ms, claim_ms, acked, channel = string.match(ARGV[5], '^(%d+) (%d+) ([01]) (.+)$')
-- token: the fence's value, once this call has read it; marked: whether it says waiters.
local now_ms, now_us, token, marked
if t then
  now_ms, now_us = math.floor(t[1] * 1000 + t[2] / 1000), tonumber(now_us_text)
  local waiters, fenced
  token, waiters, fenced = settle_fence(swapped, now_us, retention)
  -- Without a fence, whether anyone is queued is asked once: the queue may outlive the fence.
  local queued = not fenced and redis.call('EXISTS', QUEUE) == 1
  if queued then
    -- The fence had expired while waiters are queued: its waiters mark must come back with it.
    write_fence(token, true, retention)
    waiters = true
  end
  marked = waiters
  if not waiters and not tried then
    if set_lock(owner, token, 1, lease, now_us, '-', nil, true) then
      return {1, token, 1}
    end
  end
end

-- See 'issued' above; the clock covers a fence key that has expired (see issue_token). One below
-- the clock: a token issued later is max(fence + 1, clock), which a grant in this same microsecond
-- would make equal to the clock itself.
local function issued()
  if not now_us then
    now_ms, now_us = server_time()
  end
  return math.max(token or read_fence(), now_us - 1)
end

local holder, htoken, hcount, hlease, hsince, hwaiters, hattempt = parse_lock(redis.call('GET', KEYS[1]))

if holder == owner then
  if mode == 'reenter' then
    -- The count in Redis is for operators; the client keeps the one it relies on. A re-entry whose
    -- reply was lost may count twice here: harmless, since the last unlock releases every hold.
    if not now_ms then
      now_ms, now_us = server_time()
    end
    local count = tonumber(hcount) + 1
    -- Never shorter than it was: the expiry becomes the lease from now, or stays if later; the
    -- value keeps the longest lease asked, which bounds it (see lockvalue.lua).
    set_lock(owner, htoken, count, math.max(lease, tonumber(hlease)), hsince, hwaiters, nil, false,
        math.max(lease, redis.call('PTTL', KEYS[1])))
    return {2, tonumber(htoken), count}
  end
  if mode == 'abandon' then
    redis.call('DEL', KEYS[1])
    if hwaiters == 'w' then
      if not now_ms then
        now_ms, now_us = server_time()
      end
      grant_next(now_ms, now_us, retention)
    end
    return {-1, 0, 0}
  end
  if acked == '1' then
    keep_lock(owner, htoken, hcount, hlease, hsince, hwaiters)
  end
  return {3, tonumber(htoken), 1}
end

if mode == 'reenter' then
  return {-2, 0, 0}
end

if mode == 'giveup' or mode == 'abandon' then
  forget_waiter(owner)
  if redis.call('EXISTS', QUEUE) == 0 then
    mark_waiters(false, retention)
  end
  return {-1, 0, 0}
end

if mode == 'recheck' and not redis.call('ZSCORE', QUEUE, owner) then
  -- The caller's entry is gone: it expired, or it was granted and the grant has since ended (a
  -- notification may still be on its way). Never take the lock here under the old request: the
  -- caller must queue again, so a late grant cannot be mistaken for a live one.
  return {-3, 0, 0, issued()}
end

if not now_ms then
  now_ms, now_us = server_time()
end

if not holder then
  -- Free, normally because a holder's lease ran out. Serve the queue in order: the first live
  -- waiter gets it, unless that is the caller or nobody waits.
  local first = first_live_waiter(now_ms)
  if first and first ~= owner then
    grant_next(now_ms, now_us, retention)
  elseif first then
    return {1, give_to(owner, lease, now_us, retention), 1}
  else
    if not token then
      token = issue_token(now_us, retention)
    end
    write_fence(token, false, retention)
    set_lock(owner, token, 1, lease, now_us, '-')
    return {1, token, 1}
  end
end

-- Held by another owner (or just handed to the first waiter above): when its hold ends (0 within
-- its last millisecond).
local pttl = redis.call('PTTL', KEYS[1])
if mode ~= 'try' then
  enqueue(owner, now_ms, now_us, tonumber(entry_ms), ARGV[2] .. ' ' .. claim_ms .. ' ' .. channel)
  -- Mark the fence (written again, so that it outlives the wait) and the hold as having waiters,
  -- from what this call already read where it can.
  if not holder then
    token = nil -- the hand-over above issued a token since
    mark_waiters(true, retention)
  else
    if not token or not marked then
      write_fence(token or read_fence(), true, retention)
    end
    if hwaiters ~= 'w' then
      keep_lock(holder, htoken, hcount, hlease, hsince, 'w', hattempt)
    end
  end
  return {0, 0, pttl, issued()}
end
return {0, 0, pttl}
